import FleetCore

/// A load shape: when users start and, for closed models, how many live at once.
///
/// Each model is one file holding its config, its validation and its runtime; models never see
/// journeys, only an `ArrivalDriver` that starts users (k6's executors follow the same split).
public protocol WorkloadModel: Sendable {
    /// The `model.type` value in profiles.
    static var type: String { get }
    /// Reads and validates the model's fields; returns nil after reporting problems.
    static func parse(_ o: JSONObject, path: String, reader: ProfileReader) -> Self?
    /// How long the model's schedule lasts, in seconds (the run's planned duration).
    var plannedDurationS: Double { get }
    /// Starts users until the schedule is over or the driver is stopping.
    func drive(_ driver: ArrivalDriver) async
}

/// The parsed model of one scenario.
public struct WorkloadModelConfig: Sendable {
    public let model: any WorkloadModel

    /// Every model type, for parsing and for the error that lists them.
    public static let types: [any WorkloadModel.Type] = [
        PerUserOnce.self, ConstantArrivalRate.self, RampingArrivalRate.self, ConstantPopulation.self, RampingPopulation.self, PopulationModel.self,
    ]

    static func parse(_ v: JSONValue?, path: String, reader: ProfileReader) -> WorkloadModelConfig? {
        guard let v else { reader.issue(path, "is required"); return nil }
        guard let o = v.object else { reader.issue(path, "must be an object"); return nil }
        guard let t = o["type"]?.string else {
            reader.issue(reader.join(path, "type"), "is required (one of \(types.map { $0.type }.joined(separator: ", ")))")
            return nil
        }
        guard let m = types.first(where: { $0.type == t }) else {
            reader.issue(reader.join(path, "type"), "unknown model '\(t)' (expected one of \(types.map { $0.type }.joined(separator: ", ")))")
            return nil
        }
        return m.parse(o, path: path, reader: reader).map { WorkloadModelConfig(model: $0) }
    }
}

/// One stage of a ramping model: move linearly to `target` over `durationS`.
public struct Stage: Sendable, Equatable {
    public var durationS: Double
    public var target: Double

    static func parseList(_ o: JSONObject, path: String, reader: ProfileReader, targetName: String,
                          targetMinimum: Double) -> [Stage]? {
        let p = reader.join(path, "stages")
        guard let arr = o["stages"]?.array else {
            reader.issue(p, o["stages"] == nil ? "is required" : "must be an array")
            return nil
        }
        if arr.isEmpty { reader.issue(p, "must have at least one stage") }
        var stages: [Stage] = []
        for (i, s) in arr.enumerated() {
            let sp = "\(p)[\(i)]"
            guard let so = reader.object(s, sp, known: ["duration_s", targetName]) else { continue }
            let d = reader.number(so, "duration_s", sp, required: true, greaterThan: 0)
            let t = reader.number(so, targetName, sp, required: true, atLeast: targetMinimum)
            if let d, let t { stages.append(Stage(durationS: d, target: t)) }
        }
        return stages.count == arr.count ? stages : nil
    }

    /// The value at `t` seconds into a staged schedule that starts at `start`.
    static func value(at t: Double, start: Double, stages: [Stage]) -> Double {
        var from = start, elapsed = 0.0
        for s in stages {
            if t < elapsed + s.durationS { return from + (s.target - from) * (t - elapsed) / s.durationS }
            elapsed += s.durationS
            from = s.target
        }
        return from
    }
}
