import FleetMetrics

/// Turns measurements into a verdict: thresholds evaluated, and a loud note when the generator
/// fell behind (lag p99 over the profile's bound, or dropped arrivals), so that a run whose load
/// was not what the profile asked for can never pass for one whose was.
enum Verdict {
    static func apply(profile: Profile, to results: RunResults) -> RunResults {
        var r = results
        if let lag = r.metric("scheduling_lag")?.corrected, lag.count > 0 {
            let p99 = Double(lag.value(atPercentile: 99)) / 1000
            if p99 > profile.maxLagMs {
                r.meta.notes.insert("generator fell behind: scheduling lag p99 \(ms(p99)) ms > bound \(ms(profile.maxLagMs)) ms; "
                                    + "latencies are corrected from intended start times, but the load was not the one planned", at: 0)
            }
        }
        if let dropped = r.counters["dropped_arrivals"], dropped > 0 {
            r.meta.notes.insert("generator fell behind: \(dropped) arrivals dropped (no capacity to start them on time)", at: 0)
        }
        // The profile was validated, so every rule parses; a failure here is a bug worth seeing.
        r.meta.thresholds = (try? Threshold.evaluateAll(profile.thresholds, in: r)) ?? []
        return r
    }

    static func ms(_ x: Double) -> String { String((x * 10).rounded() / 10) }
}
