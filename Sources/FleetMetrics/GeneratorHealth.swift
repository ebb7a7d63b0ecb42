import Foundation

extension RunResults {
    /// Why the generator's own numbers cannot be trusted, if they cannot: empty when it kept up.
    ///
    /// A generator that fell behind sends requests later than the workload asked, which hides
    /// load (coordinated omission); the corrected latencies still tell the truth, but the report
    /// must say so loudly. It fell behind when the p99 of `scheduling_lag` is above
    /// `lagP99BoundMicros` (default: `meta.lagBoundMicros`, else 50 ms) or when arrivals were
    /// dropped because no user could start on time.
    public func generatorBehindReasons(lagP99BoundMicros: Int64? = nil) -> [String] {
        let bound = lagP99BoundMicros ?? meta.lagBoundMicros ?? RunResults.defaultLagBoundMicros
        var reasons: [String] = []
        if let lag = metric(MetricName.schedulingLag)?.corrected, !lag.isEmpty {
            let p99 = lag.value(atPercentile: 99)
            if p99 > bound {
                reasons.append("scheduling lag p99 \(Self.ms(p99)) ms is over the \(Self.ms(bound)) ms bound "
                               + "(max \(Self.ms(lag.max)) ms): requests went out later than planned")
            }
        }
        if let dropped = counter(.droppedArrivals), dropped > 0 {
            reasons.append("\(dropped) arrivals were dropped because no virtual user could start on time")
        }
        // Merged shards: a shard that lagged is named, even when the whole run's p99 hides it.
        for s in meta.shardRuns ?? [] where !s.behind.isEmpty {
            reasons.append("shard \(s.label) (\(s.runId)): " + s.behind.joined(separator: "; "))
        }
        return reasons
    }

    /// A note when the host took CPU from this machine while the run went (hypervisor steal, from
    /// the health samples): at least `windowShareBound` of one core in some window, or
    /// `totalBoundSeconds` in all. nil when it did not, or when the samples do not say. A note,
    /// not a reason the generator fell behind: the lag figures say whether it did; this says why
    /// it may have, when nothing on the machine was busy.
    public func hostStealNote(totalBoundSeconds: Double = 1, windowShareBound: Double = 0.05) -> String? {
        guard let total = health.filter({ $0.hostStealSeconds != nil }).max(by: { $0.window < $1.window })?.hostStealSeconds
        else { return nil }
        let worst = hostStealShares().max { $0.share < $1.share } ?? (window: 0, share: 0)
        guard total >= totalBoundSeconds || worst.share >= windowShareBound else { return nil }
        let at = Double(worst.window) * Double(windowNanos) / 1e9
        return "host steal: the hypervisor gave \(String(format: "%.1f", total)) s of this machine's CPU to other guests "
            + "while the run went (at most \(Int((worst.share * 100).rounded())) % of a core in one window, at "
            + "\(String(format: "%g", at)) s); requests may have gone out late for a reason outside the bench"
    }

    /// The host's steal window by window, as a share of one core: between consecutive health
    /// samples that carry it (the note above and the report's chart both read it from here).
    public func hostStealShares() -> [(window: Int, share: Double)] {
        let samples = health.compactMap { h in h.hostStealSeconds.map { (window: h.window, seconds: $0) } }
            .sorted { $0.window < $1.window }
        let windowSeconds = Double(windowNanos) / 1e9
        guard windowSeconds > 0 else { return [] }
        return zip(samples, samples.dropFirst()).compactMap { a, b in
            b.window > a.window ? (b.window, Swift.max(0, (b.seconds - a.seconds) / (Double(b.window - a.window) * windowSeconds))) : nil
        }
    }

    /// The scheduling-lag p99 above which a run counts as fallen behind, when nothing else says.
    public static let defaultLagBoundMicros: Int64 = 50_000

    private static func ms(_ micros: Int64) -> String {
        let v = Double(micros) / 1000
        return v == v.rounded() ? String(Int64(v)) : String(format: "%.1f", v)
    }
}
