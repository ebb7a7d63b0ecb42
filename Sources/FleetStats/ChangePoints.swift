import FleetCore

/// A place in a series where its level moved: E-divisive means (Matteson & James, 2014) with a
/// permutation test, in the way Apache Otava (formerly Hunter) applies it to nightly benchmark
/// history. Independent code; only the method is theirs.
public struct ChangePoint: Sendable, Codable, Equatable {
    /// Index of the first point after the change (0-based, in the series given).
    public var index: Int
    public var meanBefore: Double
    public var meanAfter: Double
    /// (after - before) / before.
    public var relativeChange: Double
    public var pValue: Double
}

/// E-divisive means, windowed:
/// - the divergence of a split at τ is q(τ) = m·k/(m+k) · (2/(m·k) Σ|xᵢ−yⱼ| − 1/C(m,2) Σ|xᵢ−xⱼ| − 1/C(k,2) Σ|yᵢ−yⱼ|)
///   for the m points before and the k after (exponent α = 1);
/// - the best split of a segment is the τ of largest q; its p-value is the share of random
///   permutations of the segment whose best q is at least as large ((hits + 1) / (permutations + 1));
/// - segments are split again while the most divergent split is significant (p ≤ `maxPValue`)
///   and its step in means is at least `minMagnitude`;
/// - a long series is analysed in windows of `window` points that overlap by half, so an old
///   regime far away does not drown a recent small step.
/// The permutations use a fixed seed: the same history always gives the same change points.
public struct EDivisive: Sendable {
    public var maxPValue: Double
    public var minMagnitude: Double
    public var permutations: Int
    public var window: Int
    /// The fewest points on each side of a split.
    public var minSegment: Int
    public var seed: UInt64

    public init(maxPValue: Double = 0.001, minMagnitude: Double = 0.05, permutations: Int = 1999, window: Int = 30,
                minSegment: Int = 3, seed: UInt64 = 0xC4A9) {
        self.maxPValue = maxPValue
        self.minMagnitude = minMagnitude
        self.permutations = permutations
        self.window = window
        self.minSegment = minSegment
        self.seed = seed
    }

    /// The change points of `series`, by increasing index.
    public func changePoints(_ series: [Double]) -> [ChangePoint] {
        guard series.count >= 2 * minSegment else { return [] }
        var found: [Int: ChangePoint] = [:]
        let w = Swift.max(2 * minSegment, window)
        var start = 0
        while true {
            let end = Swift.min(series.count, start + w)
            for cp in analyse(Array(series[start..<end])) {
                let global = ChangePoint(index: cp.index + start, meanBefore: cp.meanBefore, meanAfter: cp.meanAfter,
                                         relativeChange: cp.relativeChange, pValue: cp.pValue)
                // The same step seen from two windows: keep the one with the smaller p-value.
                if let near = found.keys.first(where: { abs($0 - global.index) <= 1 }) {
                    if found[near]!.pValue > global.pValue { found[near] = nil; found[global.index] = global }
                } else {
                    found[global.index] = global
                }
            }
            if end == series.count { break }
            start += w / 2
        }
        return found.values.sorted { $0.index < $1.index }
    }

    /// Change points of one window, by recursive splitting.
    func analyse(_ x: [Double]) -> [ChangePoint] {
        var rng = SeededRandom(seed: seed, stream: UInt64(x.count))
        var cuts: [Int] = []
        var result: [ChangePoint] = []
        while true {
            let bounds = [0] + cuts + [x.count]
            var best: (start: Int, tau: Int, q: Double)?
            for i in 0..<(bounds.count - 1) {
                let seg = Array(x[bounds[i]..<bounds[i + 1]])
                guard let s = bestSplit(seg) else { continue }
                if best == nil || s.q > best!.q { best = (bounds[i], s.tau, s.q) }
            }
            guard let b = best else { break }
            let segEnd = bounds.first { $0 > b.start }!
            let seg = Array(x[b.start..<segEnd])
            let p = pValue(seg, observed: b.q, &rng)
            let before = mean(seg[0..<b.tau]), after = mean(seg[b.tau...])
            let rel = before != 0 ? (after - before) / abs(before) : (after == 0 ? 0 : .infinity)
            guard p <= maxPValue, abs(rel) >= minMagnitude else { break }
            cuts.append(b.start + b.tau)
            cuts.sort()
            // Means from the neighbouring cuts, so the step reported is between the two regimes.
            result.append(ChangePoint(index: b.start + b.tau, meanBefore: before, meanAfter: after, relativeChange: rel, pValue: p))
        }
        return result.sorted { $0.index < $1.index }
    }

    /// The split τ of largest divergence, or nil when the segment is too short to split.
    func bestSplit(_ x: [Double]) -> (tau: Int, q: Double)? {
        let n = x.count
        guard n >= 2 * minSegment else { return nil }
        // Moving τ right by one moves point τ from the right part to the left: update the three
        // sums in O(n) per step, O(n²) per segment.
        var within = 0.0   // Σ|xᵢ−xⱼ| over pairs left of τ
        var across = 0.0   // over pairs split by τ
        var right = 0.0    // over pairs right of τ
        for i in 0..<n { for j in (i + 1)..<n { right += abs(x[i] - x[j]) } }
        var best: (Int, Double)?
        for tau in 1..<n {
            let moving = tau - 1
            var toLeft = 0.0, toRight = 0.0
            for i in 0..<moving { toLeft += abs(x[i] - x[moving]) }
            for j in (moving + 1)..<n { toRight += abs(x[moving] - x[j]) }
            within += toLeft
            right -= toRight
            across += toRight - toLeft
            let m = Double(tau), k = Double(n - tau)
            guard tau >= minSegment, n - tau >= minSegment else { continue }
            let q = m * k / (m + k) * (2 * across / (m * k) - within / (m * (m - 1) / 2) - right / (k * (k - 1) / 2))
            if best == nil || q > best!.1 { best = (tau, q) }
        }
        return best
    }

    func pValue(_ x: [Double], observed: Double, _ rng: inout SeededRandom) -> Double {
        var hits = 0
        var y = x
        for _ in 0..<permutations {
            for i in stride(from: y.count - 1, to: 0, by: -1) { y.swapAt(i, Int(rng.next() % UInt64(i + 1))) }
            if let s = bestSplit(y), s.q >= observed { hits += 1 }
        }
        return Double(hits + 1) / Double(permutations + 1)
    }

    func mean(_ s: ArraySlice<Double>) -> Double { s.isEmpty ? 0 : s.reduce(0, +) / Double(s.count) }
}
