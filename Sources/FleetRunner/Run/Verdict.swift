import FleetMetrics

/// Turns measurements into a verdict: thresholds evaluated, and a loud note when the generator
/// fell behind (lag p99 over the profile's bound, or dropped arrivals), so that a run whose load
/// was not what the profile asked for can never pass for one whose was.
enum Verdict {
    static func apply(profile: Profile, to results: RunResults) -> RunResults {
        var r = results
        var behind = r.generatorBehindReasons(lagP99BoundMicros: Int64(profile.maxLagMs * 1000)).map { "generator fell behind: \($0)" }
        // Which scenario dropped them, so the fix (its `max_users`, or a smaller rate) is obvious.
        let perScenario = profile.scenarios.compactMap { s -> String? in
            guard let n = r.counter(.droppedArrivals(s.name)), n > 0 else { return nil }
            return "\(s.name) \(n) of \(n + (r.counter(.usersStarted(s.name)) ?? 0))"
        }
        if !perScenario.isEmpty { behind.append("dropped arrivals by scenario: " + perScenario.joined(separator: ", ")) }
        r.meta.notes.insert(contentsOf: behind, at: 0)
        // The profile was validated, so every rule parses; evaluation cannot fail on syntax here.
        r.meta.thresholds = (try? Threshold.evaluateAll(profile.thresholds, in: r)) ?? []
        return r
    }
}
