import FleetCore

/// `per-user-once`: N users, each walking one journey once, starts spread evenly over a ramp.
/// The walking skeleton's shape and the smoke test's: a known number of journeys, then done.
public struct PerUserOnce: WorkloadModel {
    public static let type = "per-user-once"
    public var users: Int
    public var rampS: Double
    /// How long users may take after the last start (bounds the run).
    public var maxDurationS: Double

    public static func parse(_ o: JSONObject, path: String, reader: ProfileReader) -> PerUserOnce? {
        _ = reader.object(.object(o), path, known: ["type", "users", "ramp_s", "max_duration_s"])
        let users = reader.integer(o, "users", path, required: true, atLeast: 1)
        let ramp = reader.number(o, "ramp_s", path, atLeast: 0) ?? 0
        let maxD = reader.number(o, "max_duration_s", path, greaterThan: 0) ?? 300
        guard let users else { return nil }
        if ramp > maxD { reader.issue(reader.join(path, "ramp_s"), "must be <= max_duration_s (\(maxD))") }
        return PerUserOnce(users: users, rampS: ramp, maxDurationS: maxD)
    }

    public var plannedDurationS: Double { maxDurationS }

    public func drive(_ driver: ArrivalDriver) async {
        let step = users > 1 ? rampS / Double(users - 1) : 0
        for i in 0..<users where driver.shard.owns(i) {
            let intended = driver.start &+ UInt64(Double(i) * step * 1e9)
            guard await driver.waitUntil(intended) else { break }
            driver.launch(intended: intended, index: i)
        }
    }
}
