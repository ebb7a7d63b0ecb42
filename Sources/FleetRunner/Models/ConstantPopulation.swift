import FleetCore

/// `constant-population`: a closed model. `users` users are alive for `duration_s`; each is
/// replaced by a new user when its journey ends (soak tests). Starts spread over `ramp_s`.
public struct ConstantPopulation: WorkloadModel {
    public static let type = "constant-population"
    public var users: Int
    public var durationS: Double
    public var rampS: Double

    public static func parse(_ o: JSONObject, path: String, reader: ProfileReader) -> ConstantPopulation? {
        _ = reader.object(.object(o), path, known: ["type", "users", "duration_s", "ramp_s"])
        let users = reader.integer(o, "users", path, required: true, atLeast: 1)
        let d = reader.number(o, "duration_s", path, required: true, greaterThan: 0)
        let ramp = reader.number(o, "ramp_s", path, atLeast: 0) ?? 0
        guard let users, let d else { return nil }
        if ramp > d { reader.issue(reader.join(path, "ramp_s"), "must be <= duration_s (\(d))") }
        return ConstantPopulation(users: users, durationS: d, rampS: ramp)
    }

    public var plannedDurationS: Double { durationS }

    public func drive(_ driver: ArrivalDriver) async {
        let end = driver.start &+ UInt64(durationS * 1e9)
        // A shard runs the slots it owns; the n-th user of slot k is number n·users + k, so
        // numbers do not depend on which slot happens to finish first.
        await driver.runSlots(driver.shard.share(of: users)) { j, run in
            let slot = driver.shard.member(j)
            var intended = driver.start &+ UInt64(Double(slot) * rampS / Double(max(1, users)) * 1e9)
            var n = 0
            while intended < end, await run.waitUntil(intended) {
                await run.walk(intended: intended, index: n * users + slot)
                n += 1
                intended = MonotonicClock.now()
            }
        }
    }
}
