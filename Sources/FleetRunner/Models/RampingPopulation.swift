import FleetCore

/// `ramping-population`: a closed model whose population follows stages (`start_users`, then each
/// stage's `users` reached linearly at its end). Slot k is alive while the target exceeds k; a
/// slot that falls above the target retires when its current journey ends (users are never killed
/// to shrink the population).
public struct RampingPopulation: WorkloadModel {
    public static let type = "ramping-population"
    public var startUsers: Int
    public var stages: [Stage]

    public static func parse(_ o: JSONObject, path: String, reader: ProfileReader) -> RampingPopulation? {
        _ = reader.object(.object(o), path, known: ["type", "start_users", "stages"])
        let start = reader.integer(o, "start_users", path, atLeast: 0) ?? 0
        guard let stages = Stage.parseList(o, path: path, reader: reader, targetName: "users", targetMinimum: 0) else { return nil }
        for (i, s) in stages.enumerated() where s.target != s.target.rounded() {
            reader.issue("\(reader.join(path, "stages"))[\(i)].users", "must be an integer")
        }
        return RampingPopulation(startUsers: start, stages: stages)
    }

    public var plannedDurationS: Double { stages.reduce(0) { $0 + $1.durationS } }

    /// The population the schedule asks for at `t` seconds. A hair of tolerance, so that the
    /// instant `firstTime` computes for a slot really counts it as alive despite rounding.
    public func target(at t: Double) -> Int {
        Int((Stage.value(at: t, start: Double(startUsers), stages: stages) + 1e-9).rounded(.down))
    }

    public func drive(_ driver: ArrivalDriver) async {
        let end = driver.start &+ UInt64(plannedDurationS * 1e9)
        let peak = max(startUsers, Int(stages.map(\.target).max() ?? 0))
        // A shard runs the slots it owns; user numbers are n·peak + slot (see ConstantPopulation).
        await driver.runSlots(driver.shard.share(of: peak)) { j, run in
            let slot = driver.shard.member(j)
            // A slot sleeps until the target first exceeds it, then runs journeys while it does.
            var next = driver.start
            var n = 0
            while next < end {
                let t = Double(next &- driver.start) / 1e9
                if target(at: t) > slot {
                    guard await run.waitUntil(next) else { return }
                    await run.walk(intended: next, index: n * peak + slot)
                    n += 1
                    next = MonotonicClock.now()
                } else {
                    guard let later = firstTime(above: slot, after: t) else { return }
                    // At least 1 ms on: rounding can never make a slot spin in place.
                    next = max(driver.start &+ UInt64(later * 1e9), next &+ 1_000_000)
                }
            }
        }
    }

    /// The first instant at or after `t` (seconds) at which the target exceeds `slot`, or nil if
    /// never within the schedule.
    ///
    /// In each stage the target moves linearly from `from` to `to`, so the instants where it is at
    /// least `slot + 1` form one interval of the stage: all of it, none, its tail (rising) or its
    /// head (falling). The answer is the earliest such instant not before `t`.
    func firstTime(above slot: Int, after t: Double) -> Double? {
        let need = Double(slot + 1)
        var from = Double(startUsers), begin = 0.0
        for s in stages {
            let end = begin + s.durationS
            defer { begin = end; from = s.target }
            guard end > t else { continue }
            let to = s.target
            var lo = begin, hi = end  // the interval of the stage where the target is >= need
            if from >= need, to >= need {
                // the whole stage
            } else if from < need, to < need {
                continue
            } else if to > from {
                lo = begin + (need - from) * s.durationS / (to - from)
            } else {
                hi = begin + (from - need) * s.durationS / (from - to)
            }
            let at = max(lo, t)
            if at < hi { return at }
        }
        return nil
    }
}
