import FleetCore
import FleetMetrics

/// A confidence interval for the ratio new/base of one percentile, from a moving-block bootstrap
/// over each run's windows.
///
/// Why windows and blocks: samples inside a run are not independent (a queue that builds up slows
/// every assessment for a while), so resampling single samples would make the interval far too
/// narrow. Windows are resampled in blocks of consecutive windows (length ≈ √windows), which keeps
/// that short-range dependence inside a block. Both runs are resampled independently, `rounds`
/// times, with a generator seeded from the metric's name, so the same two files always give the
/// same interval.
public struct BlockBootstrap: Sendable {
    public var rounds: Int
    /// Two-sided coverage of the interval (0.95 → the 2.5th and 97.5th percentiles of the ratios).
    public var confidence: Double
    public var seed: UInt64

    public init(rounds: Int = 1000, confidence: Double = 0.95, seed: UInt64 = 0xF1EE7) {
        self.rounds = rounds
        self.confidence = confidence
        self.seed = seed
    }

    /// Ratio intervals for each percentile in `ps`, or nil when either side has fewer than 2 windows.
    public func ratioIntervals(base: [Histogram], new: [Histogram], percentiles ps: [Double],
                               stream: String) -> [(low: Double, high: Double)]? {
        let b = WindowedDistribution(base.filter { !$0.isEmpty })
        let n = WindowedDistribution(new.filter { !$0.isEmpty })
        guard b.windows.count >= 2, n.windows.count >= 2 else { return nil }
        var rng = SeededRandom(seed: seed, stream: Self.streamNumber(stream))
        var bc = [Int64](repeating: 0, count: b.values.count)
        var nc = [Int64](repeating: 0, count: n.values.count)
        var ratios = [[Double]](repeating: [], count: ps.count)
        for _ in 0..<rounds {
            let qb = b.percentiles(ps, of: Self.blockResample(b.windows.count, &rng), counts: &bc)
            let qn = n.percentiles(ps, of: Self.blockResample(n.windows.count, &rng), counts: &nc)
            for i in ps.indices where qb[i] > 0 { ratios[i].append(Double(qn[i]) / Double(qb[i])) }
        }
        let tail = (1 - confidence) / 2
        return ratios.map { r in
            guard !r.isEmpty else { return (0, 0) }
            let s = r.sorted()
            return (Self.quantile(s, tail), Self.quantile(s, 1 - tail))
        }
    }

    /// Indices of `count` windows drawn as blocks of consecutive windows, concatenated to `count`.
    static func blockResample(_ count: Int, _ rng: inout SeededRandom) -> [Int] {
        let length = Swift.max(1, Int(Double(count).squareRoot().rounded()))
        var picks: [Int] = []
        picks.reserveCapacity(count + length)
        while picks.count < count {
            let start = Int(rng.next() % UInt64(count - length + 1))
            picks.append(contentsOf: start..<Swift.min(start + length, start + count - picks.count))
        }
        return picks
    }

    /// The q-quantile of sorted values, interpolating between neighbours.
    static func quantile(_ sorted: [Double], _ q: Double) -> Double {
        let pos = q * Double(sorted.count - 1)
        let lo = Int(pos.rounded(.down)), hi = Swift.min(sorted.count - 1, lo + 1)
        return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - Double(lo))
    }

    /// A stable per-metric stream number (FNV-1a of the name), so that adding a metric does not
    /// change the intervals of the others.
    static func streamNumber(_ s: String) -> UInt64 {
        var h: UInt64 = 0xcbf29ce484222325
        for b in s.utf8 { h = (h ^ UInt64(b)) &* 0x100000001b3 }
        return h
    }
}
