import FleetCore

/// `constant-arrival-rate`: an open model. New users arrive by a Poisson process at `rate` per
/// second for `duration_s`, whatever the stack's speed. An arrival that finds `max_users` users
/// already active is counted in `dropped_arrivals`, never silently delayed.
public struct ConstantArrivalRate: WorkloadModel {
    public static let type = "constant-arrival-rate"
    public var rate: Double
    public var durationS: Double
    public var maxUsers: Int

    public static func parse(_ o: JSONObject, path: String, reader: ProfileReader) -> ConstantArrivalRate? {
        _ = reader.object(.object(o), path, known: ["type", "rate", "duration_s", "max_users"])
        let rate = reader.number(o, "rate", path, required: true, greaterThan: 0)
        let d = reader.number(o, "duration_s", path, required: true, greaterThan: 0)
        let maxUsers = reader.integer(o, "max_users", path, atLeast: 1) ?? 10_000
        guard let rate, let d else { return nil }
        return ConstantArrivalRate(rate: rate, durationS: d, maxUsers: maxUsers)
    }

    public var plannedDurationS: Double { durationS }

    public func drive(_ driver: ArrivalDriver) async {
        await PoissonArrivals.drive(driver, durationS: durationS, maxRate: rate, maxUsers: maxUsers) { _ in rate }
    }
}

/// A (non-homogeneous) Poisson process by thinning: candidates at the peak rate, each kept with
/// probability rate(t) / peak. Arrival instants are intended starts; when the generator wakes
/// late it launches every due arrival with its own intended time, so the lag is recorded.
public struct PoissonArrivals: Sequence, IteratorProtocol {
    let durationS: Double
    let maxRate: Double
    let rate: (Double) -> Double
    var random: SeededRandom
    var t = 0.0

    public init(durationS: Double, maxRate: Double, random: SeededRandom, rate: @escaping (Double) -> Double) {
        self.durationS = durationS
        self.maxRate = maxRate
        self.random = random
        self.rate = rate
    }

    /// The next arrival, in seconds from the start, or nil past the end.
    public mutating func next() -> Double? {
        guard maxRate > 0 else { return nil }
        while true {
            t += random.exponential(mean: 1 / maxRate)
            if t >= durationS { return nil }
            if random.unit() * maxRate <= rate(t) { return t }
        }
    }

    static func drive(_ driver: ArrivalDriver, durationS: Double, maxRate: Double, maxUsers: Int,
                      rate: @escaping (Double) -> Double) async {
        var arrivals = PoissonArrivals(durationS: durationS, maxRate: maxRate, random: driver.scheduleRandom(), rate: rate)
        // Every shard draws the whole schedule and keeps its own arrivals (see `Shard`); the cap
        // on users alive is divided the same way (at least one each).
        let cap = Swift.max(1, driver.shard.share(of: maxUsers))
        var k = -1
        while let t = arrivals.next() {
            k += 1
            guard driver.shard.owns(k) else { continue }
            let intended = driver.start &+ UInt64(t * 1e9)
            guard await driver.waitUntil(intended) else { return }
            if driver.active >= cap {
                driver.drop()
                continue
            }
            driver.launch(intended: intended, index: k)
        }
        _ = await driver.waitUntil(driver.start &+ UInt64(durationS * 1e9))
    }
}
