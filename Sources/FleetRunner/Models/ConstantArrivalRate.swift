import FleetCore

/// `constant-arrival-rate`: an open model. New users arrive by a Poisson process at `rate` per
/// second for `duration_s`, whatever the stack's speed. An arrival that finds `max_users` users
/// already active is counted in `dropped_arrivals`, never silently delayed.
public struct ConstantArrivalRate: WorkloadModel {
    public static let type = "constant-arrival-rate"
    public var rate: Double
    public var durationS: Double
    public var maxUsers: Int

    public static func parse(_ o: [String: JSONValue], path: String, reader: ProfileReader) -> ConstantArrivalRate? {
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
enum PoissonArrivals {
    static func drive(_ driver: ArrivalDriver, durationS: Double, maxRate: Double, maxUsers: Int,
                      rate: (Double) -> Double) async {
        guard maxRate > 0 else { _ = await driver.waitUntil(driver.start &+ UInt64(durationS * 1e9)); return }
        var random = driver.scheduleRandom()
        var t = 0.0
        while true {
            t += random.exponential(mean: 1 / maxRate)
            if t >= durationS { break }
            if random.unit() * maxRate > rate(t) { continue }
            let intended = driver.start &+ UInt64(t * 1e9)
            guard await driver.waitUntil(intended) else { break }
            if driver.active >= maxUsers {
                driver.drop()
                continue
            }
            driver.launch(intended: intended)
        }
    }
}
