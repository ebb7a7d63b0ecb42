import FleetMetrics

/// Turns measurements into a verdict: thresholds evaluated, and a loud note when the generator
/// fell behind (lag p99 over the profile's bound, or dropped arrivals), so that a run whose load
/// was not what the profile asked for can never pass for one whose was.
enum Verdict {
    static func apply(profile: Profile, to results: RunResults) -> RunResults {
        var r = results
        r.meta.lagBoundMicros = Int64(profile.maxLagMs * 1000)
        let behind = r.generatorBehindReasons(lagP99BoundMicros: Int64(profile.maxLagMs * 1000))
        r.meta.notes.insert(contentsOf: behind.map { "generator fell behind: \($0)" }, at: 0)
        // The profile was validated, so every rule parses; evaluation cannot fail on syntax here.
        r.meta.thresholds = (try? Threshold.evaluateAll(profile.thresholds, in: r)) ?? []
        return r
    }
}
