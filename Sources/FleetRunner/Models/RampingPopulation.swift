import FleetCore

/// `ramping-population`: a closed model whose population follows stages (`start_users`, then each
/// stage's `users` reached linearly at its end). Slot k is alive while the target exceeds k; a
/// slot that falls above the target retires when its current journey ends (users are never killed
/// to shrink the population).
public struct RampingPopulation: WorkloadModel {
    public static let type = "ramping-population"
    public var startUsers: Int
    public var stages: [Stage]

    public static func parse(_ o: [String: JSONValue], path: String, reader: ProfileReader) -> RampingPopulation? {
        _ = reader.object(.object(o), path, known: ["type", "start_users", "stages"])
        let start = reader.integer(o, "start_users", path, atLeast: 0) ?? 0
        guard let stages = Stage.parseList(o, path: path, reader: reader, targetName: "users", targetMinimum: 0) else { return nil }
        for (i, s) in stages.enumerated() where s.target != s.target.rounded() {
            reader.issue("\(reader.join(path, "stages"))[\(i)].users", "must be an integer")
        }
        return RampingPopulation(startUsers: start, stages: stages)
    }

    public var plannedDurationS: Double { stages.reduce(0) { $0 + $1.durationS } }

    public func target(at t: Double) -> Int { Int(Stage.value(at: t, start: Double(startUsers), stages: stages).rounded(.down)) }

    public func drive(_ driver: ArrivalDriver) async {
        let end = driver.start &+ UInt64(plannedDurationS * 1e9)
        let peak = max(startUsers, Int(stages.map(\.target).max() ?? 0))
        await withTaskGroup(of: Void.self) { group in
            for slot in 0..<peak {
                group.addTask {
                    // A slot sleeps until the target first exceeds it, then runs journeys while it does.
                    var next = driver.start
                    while next < end {
                        let t = Double(next &- driver.start) / 1e9
                        if target(at: t) > slot {
                            guard await driver.waitUntil(next) else { return }
                            await driver.runOne(intended: next)
                            next = MonotonicClock.now()
                        } else {
                            guard let later = firstTime(above: slot, after: t) else { return }
                            next = driver.start &+ UInt64(later * 1e9)
                        }
                    }
                }
            }
        }
    }

    /// The first instant after `t` (seconds) at which the target exceeds `slot`, or nil if never.
    func firstTime(above slot: Int, after t: Double) -> Double? {
        var from = Double(startUsers), begin = 0.0
        for s in stages {
            let stageEnd = begin + s.durationS
            if stageEnd > t {
                let need = Double(slot + 1)
                if s.target > from, s.target >= need {
                    // Linear in the stage: from + (target − from)·(x − begin)/duration reaches `need`.
                    let x = begin + (need - from) * s.durationS / (s.target - from)
                    let at = max(x, t) + 1e-6
                    if at < stageEnd { return at }
                } else if from >= need {
                    return max(begin, t) + 1e-6
                }
            }
            begin = stageEnd
            from = s.target
        }
        return nil
    }
}
