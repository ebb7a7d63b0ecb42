import FleetCore

/// `population`: the visits of the profile's `population` (daily active users, sessions, curve,
/// timezones), over a compressed day or its peak hour. `sample` walks a share of the users (a
/// 100 000-user day does not fit a 2-core bench; the printed curve is the whole population's).
/// Repeat visits of a user are the same account and device.
public struct PopulationModel: WorkloadModel {
    public static let type = "population"
    public var window: PopulationSchedule.Window
    public var compression: Double
    public var sample: Double
    public var maxUsers: Int
    /// Filled in from the profile's `population` section after parsing.
    public var spec: PopulationSpec?
    public var seed: UInt64 = 1

    public static func parse(_ o: JSONObject, path: String, reader: ProfileReader) -> PopulationModel? {
        _ = reader.object(.object(o), path, known: ["type", "window", "compression", "sample", "max_users"])
        var window = PopulationSchedule.Window.day
        if let w = reader.string(o, "window", path) {
            guard let v = PopulationSchedule.Window(rawValue: w) else {
                reader.issue(reader.join(path, "window"), "must be day or peak_hour"); return nil
            }
            window = v
        }
        let compression = reader.number(o, "compression", path, greaterThan: 0, atMost: 86_400) ?? 60
        let sample = reader.number(o, "sample", path, greaterThan: 0, atMost: 1) ?? 1
        let maxUsers = reader.integer(o, "max_users", path, atLeast: 1) ?? 10_000
        return PopulationModel(window: window, compression: compression, sample: sample, maxUsers: maxUsers)
    }

    public var plannedDurationS: Double { PopulationSchedule.lengthS(window: window, compression: compression) }

    public var users: Int { spec.map { max(1, Int((Double($0.dailyActiveUsers) * sample).rounded())) } ?? 0 }

    public func drive(_ driver: ArrivalDriver) async {
        guard let spec else { return }
        let visits = PopulationSchedule.visits(spec, seed: seed, users: users, window: window, compression: compression,
                                                dayStartMs: PopulationSchedule.today())
        for v in visits {
            let intended = driver.start &+ UInt64(v.t * 1e9)
            guard await driver.waitUntil(intended) else { return }
            if driver.active >= maxUsers { driver.drop(); continue }
            driver.launch(intended: intended, index: PopulationUser.encode(user: v.user, visit: v.visit))
        }
        _ = await driver.waitUntil(driver.start &+ UInt64(plannedDurationS * 1e9))
    }
}
