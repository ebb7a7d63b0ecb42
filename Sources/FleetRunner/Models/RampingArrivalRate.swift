import FleetCore

/// `ramping-arrival-rate`: an open model whose Poisson rate moves linearly through stages
/// (`start_rate`, then each stage's `rate` reached at its end). A stepped ramp (equal rates
/// at both ends of a stage) finds a capacity knee.
public struct RampingArrivalRate: WorkloadModel {
    public static let type = "ramping-arrival-rate"
    public var startRate: Double
    public var stages: [Stage]
    public var maxUsers: Int

    public static func parse(_ o: JSONObject, path: String, reader: ProfileReader) -> RampingArrivalRate? {
        _ = reader.object(.object(o), path, known: ["type", "start_rate", "stages", "max_users"])
        let start = reader.number(o, "start_rate", path, atLeast: 0) ?? 0
        let maxUsers = reader.integer(o, "max_users", path, atLeast: 1) ?? 10_000
        guard let stages = Stage.parseList(o, path: path, reader: reader, targetName: "rate", targetMinimum: 0) else { return nil }
        if stages.allSatisfy({ $0.target == 0 }) && start == 0 {
            reader.issue(reader.join(path, "stages"), "every rate is 0: no user would arrive")
        }
        return RampingArrivalRate(startRate: start, stages: stages, maxUsers: maxUsers)
    }

    public var plannedDurationS: Double { stages.reduce(0) { $0 + $1.durationS } }

    public func rate(at t: Double) -> Double { Stage.value(at: t, start: startRate, stages: stages) }

    public func drive(_ driver: ArrivalDriver) async {
        let peak = max(startRate, stages.map(\.target).max() ?? 0)
        await PoissonArrivals.drive(driver, durationS: plannedDurationS, maxRate: peak, maxUsers: maxUsers) { rate(at: $0) }
    }
}
