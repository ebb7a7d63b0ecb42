import FleetMetrics

/// A metric's per-window histograms in a compact form the bootstrap can resample quickly: every
/// bin value that occurs in any window gets a slot, and each window is a list of (slot, count).
///
/// A percentile of a resample is computed exactly as `Histogram` computes it (the highest value
/// equivalent to the bin holding the sample of rank ⌈p/100 · n⌉), so a resample that happens to
/// draw every window once gives back the run's own percentile to the bin.
struct WindowedDistribution {
    /// Highest equivalent value of each slot, increasing.
    let values: [Int64]
    /// Per window, in window order: (slot, count), slots increasing.
    let windows: [[(slot: Int, count: Int64)]]

    init(_ histograms: [Histogram]) {
        var all = Set<Int64>()
        let binned = histograms.map { $0.bins() }
        for bins in binned { for b in bins { all.insert(b.highestValue) } }
        let sorted = all.sorted()
        var slotOf: [Int64: Int] = [:]
        for (i, v) in sorted.enumerated() { slotOf[v] = i }
        values = sorted
        windows = binned.map { bins in bins.map { (slotOf[$0.highestValue]!, $0.count) } }
    }

    var isEmpty: Bool { values.isEmpty }

    /// Percentiles `ps` (0...100) of the windows whose indices are in `picks` (repeats allowed);
    /// `counts` is scratch space of `values.count` zeros, left zeroed on return.
    func percentiles(_ ps: [Double], of picks: [Int], counts: inout [Int64]) -> [Int64] {
        var total: Int64 = 0
        for w in picks { for (s, c) in windows[w] { counts[s] += c; total += c } }
        defer { for w in picks { for (s, _) in windows[w] { counts[s] = 0 } } }
        guard total > 0 else { return ps.map { _ in 0 } }
        let ranks = ps.map { p in Swift.max(1, Swift.min(total, Int64((p / 100 * Double(total)).rounded(.up)))) }
        var out = [Int64](repeating: 0, count: ps.count)
        let order = ranks.indices.sorted { ranks[$0] < ranks[$1] }
        var next = 0, cumulative: Int64 = 0
        for s in 0..<values.count where next < order.count {
            cumulative += counts[s]
            while next < order.count && ranks[order[next]] <= cumulative {
                out[order[next]] = values[s]
                next += 1
            }
        }
        return out
    }
}
