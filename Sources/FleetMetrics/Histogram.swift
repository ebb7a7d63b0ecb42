/// Log-linear histogram in the spirit of HdrHistogram: ≥ 3 significant digits, fixed memory, exact merge.
///
/// Values (microseconds in Fleet) fall into buckets whose width doubles with every power of two,
/// each bucket split into `subBucketCount / 2` linear sub-buckets, so the relative error of any
/// reported value is at most `1 / (subBucketCount / 2)` — under 0.1 % at 3 significant digits.
/// Two histograms with the same layout merge by adding counts, which is exact: merging the per-window
/// histograms of a run gives back the run's total, and merging shards gives the single-run answer.
///
/// Storage is either *dense* (pages of counts, each allocated when a value first lands in it,
/// used while recording) or *sparse* (sorted index/count pairs, used for closed windows and decoded
/// files) so that thousands of per-second windows cost memory in proportion to their samples.
/// The two forms are equal when their counts are equal; `==` compares content, not form.
public struct Histogram: Sendable {
    /// The smallest value distinguishable from zero (values below it share its resolution).
    public let lowest: Int64
    /// The largest value tracked; larger values are recorded as `highest` and counted in `clamped`.
    public let highest: Int64
    public let significantDigits: Int

    let layout: HistogramLayout

    // Dense form: pages[p][k] counts index p * pageSize + k (`HistogramLayout.pageSize`, a
    // quarter bucket). A page no value has reached is an empty array, which allocates nothing.
    // One flat array grown to the highest index touched zero-filled everything below it and
    // copied itself at each regrowth: a 20 ms latency sits at index ~5,300, and a 20-second run
    // of ~15 endpoints spent ~5,000 instructions a request on that under callgrind.
    var pages: [[Int64]] = []
    // Sparse form: strictly increasing indices with positive counts. Used when `isSparse`.
    var sparseIndices: [Int32] = []
    var sparseCounts: [Int64] = []
    var isSparse = false

    public internal(set) var count: Int64 = 0
    /// Sum of the recorded (clamped) values, exact, for the mean.
    public internal(set) var sum: Int64 = 0
    /// How many recorded values were outside `[0, highest]` and were clamped into it.
    public internal(set) var clamped: Int64 = 0
    var minValue: Int64 = .max
    var maxValue: Int64 = 0

    /// The layout every Fleet histogram uses unless told otherwise: 1 µs to 1 hour, 3 digits.
    static let defaultLayout = (lowest: Int64(1), highest: Int64(3_600_000_000), digits: 3)

    public init(lowest: Int64 = 1, highest: Int64 = 3_600_000_000, significantDigits: Int = 3) {
        precondition(lowest >= 1, "Histogram: lowest must be >= 1")
        precondition(highest >= 2 * lowest, "Histogram: highest must be >= 2 * lowest")
        precondition((1...5).contains(significantDigits), "Histogram: significantDigits must be 1...5")
        self.lowest = lowest
        self.highest = highest
        self.significantDigits = significantDigits
        // The default layout is worked out once: the recorder makes two histograms for every
        // window of every metric and endpoint in every shard (~6 a request in a slow run).
        let d = Self.defaultLayout
        self.layout = (lowest, highest, significantDigits) == (d.lowest, d.highest, d.digits)
            ? Self.standardLayout : HistogramLayout(lowest: lowest, highest: highest, significantDigits: significantDigits)
    }

    private static let standardLayout = HistogramLayout(lowest: defaultLayout.lowest, highest: defaultLayout.highest,
                                                        significantDigits: defaultLayout.digits)

    /// The smallest recorded value (0 when empty).
    public var min: Int64 { count == 0 ? 0 : minValue }
    /// The largest recorded value, exact (0 when empty).
    public var max: Int64 { count == 0 ? 0 : maxValue }
    /// The exact mean of the recorded values (0 when empty).
    public var mean: Double { count == 0 ? 0 : Double(sum) / Double(count) }
    public var isEmpty: Bool { count == 0 }

    // MARK: Recording

    /// Records `value` `count` times; values outside `[0, highest]` are clamped and counted in `clamped`.
    @inline(__always)
    public mutating func record(_ value: Int64, count n: Int64 = 1) {
        guard n > 0 else { return }
        var v = value
        if v < 0 { v = 0; clamped &+= n } else if v > highest { v = highest; clamped &+= n }
        let index = layout.index(of: v)
        if isSparse && count < Self.sparseRecordingSamples {
            recordSparse(index: index, count: n)
        } else {
            if isSparse { densify() }
            addDense(index: index, count: n)
        }
        count &+= n
        sum &+= v &* n
        if v < minValue { minValue = v }
        if v > maxValue { maxValue = v }
    }

    /// A histogram that records its first `sparseRecordingSamples` samples in the sparse form,
    /// then turns dense. For the recorder's per-second windows, most of which see a few dozen
    /// samples: a dense window grew a counts array up to the highest index touched (~20,000
    /// entries, 160 KB, for a one-second latency) and was scanned to compact it when it closed,
    /// every second, for every metric and endpoint — a sixth of a slow run's instructions under
    /// valgrind (allocation, zero-fill, the copies of each regrowth, the scan).
    public static func sparseRecording() -> Histogram {
        var h = Histogram()
        h.isSparse = true
        return h
    }

    /// Samples a sparse histogram records before it turns dense. A sparse sample costs a binary
    /// search and maybe an insertion (~100 instructions against ~10 dense); a dense window costs
    /// ~40,000 to grow and scan. A busy window pays both, so the bound is low: most windows of a
    /// human-paced run (a few dozen samples per endpoint) stay sparse, and a busy one loses at
    /// most 64 sparse samples' worth. Under callgrind, at 2,048 and at 256 a 700-request-a-second
    /// `fleet blast` spent 1 % more instructions per request than with dense windows.
    static let sparseRecordingSamples: Int64 = 64

    /// Adds `n` at `index` in the sparse form, keeping the indices strictly increasing.
    private mutating func recordSparse(index: Int, count n: Int64) {
        let key = Int32(index)
        var lo = 0, hi = sparseIndices.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if sparseIndices[mid] < key { lo = mid + 1 } else { hi = mid }
        }
        if lo < sparseIndices.count && sparseIndices[lo] == key {
            sparseCounts[lo] &+= n
            return
        }
        // A new bin: appended, then moved down to its place. `insert(_:at:)` went through the
        // generic `replaceSubrange` (~240 instructions an array), and an empty window regrew its
        // arrays at 1, 2 and 4 bins (bench/instructions.sh).
        if sparseIndices.capacity == 0 {
            sparseIndices.reserveCapacity(Self.sparseFirstCapacity)
            sparseCounts.reserveCapacity(Self.sparseFirstCapacity)
        }
        sparseIndices.append(key)
        sparseCounts.append(n)
        Self.moveLastDown(&sparseIndices, to: lo)
        Self.moveLastDown(&sparseCounts, to: lo)
    }

    /// A window's first bins, reserved at once: most endpoint windows see a few samples. Not
    /// more: closed windows are kept, sparse, for the whole run (an hour is 3,600 per name).
    private static let sparseFirstCapacity = 4

    /// Moves the last element to `at`, shifting the ones from `at` up by one.
    @inline(__always)
    private static func moveLastDown<T>(_ a: inout [T], to at: Int) {
        a.withUnsafeMutableBufferPointer { b in
            var j = b.count - 1
            let last = b[j]
            while j > at { b[j] = b[j - 1]; j -= 1 }
            b[at] = last
        }
    }

    /// Allocates page `p`, zeroed. The page table is made whole at the first page (~0.7 KB of
    /// empty arrays): grown to reach each higher page as larger values arrived, it was appended
    /// to and reallocated ~0.5 times a request of the daily quest (bench/instructions.sh).
    mutating func addPage(_ p: Int) {
        if p >= pages.count {
            let n = Swift.max(p + 1, layout.pageCount)
            pages.reserveCapacity(n)
            pages.append(contentsOf: repeatElement([], count: n - pages.count))
        }
        if pages[p].isEmpty { pages[p] = [Int64](repeating: 0, count: layout.pageSize) }
    }

    /// Adds `n` at `index` in the dense form.
    @inline(__always)
    mutating func addDense(index: Int, count n: Int64) {
        let p = index &>> layout.pageMagnitude
        if p >= pages.count || pages[p].isEmpty { addPage(p) }
        pages[p][index & (layout.pageSize &- 1)] &+= n
    }

    // MARK: Queries

    /// The value at percentile `p` (0...100): the highest value equivalent to the bucket that holds
    /// the sample of rank ⌈p/100 · count⌉, limited to the exact min and max. 0 when empty.
    public func value(atPercentile p: Double) -> Int64 {
        values(atPercentiles: [p])[0]
    }

    /// Several percentiles in one pass over the counts; `ps` need not be sorted.
    public func values(atPercentiles ps: [Double]) -> [Int64] {
        guard count > 0 else { return ps.map { _ in 0 } }
        let ranks: [(rank: Int64, slot: Int)] = ps.enumerated().map { (i, p) in
            let clampedP = Swift.min(100, Swift.max(0, p.isNaN ? 0 : p))
            let r = Int64((clampedP / 100 * Double(count)).rounded(.up))
            return (Swift.max(1, Swift.min(count, r)), i)
        }.sorted { $0.rank < $1.rank }
        var out = [Int64](repeating: 0, count: ps.count)
        var next = 0
        var cumulative: Int64 = 0
        forEachBin { index, c in
            guard next < ranks.count else { return false }
            cumulative += c
            while next < ranks.count && ranks[next].rank <= cumulative {
                let v = layout.highestEquivalent(ofIndex: index)
                out[ranks[next].slot] = Swift.min(maxValue, Swift.max(minValue, v))
                next += 1
            }
            return true
        }
        return out
    }

    /// Every non-empty bin in increasing value order: its value range and count. For distribution plots.
    public func bins() -> [HistogramBin] {
        var result: [HistogramBin] = []
        forEachBin { index, c in
            result.append(HistogramBin(lowestValue: layout.lowestEquivalent(ofIndex: index),
                                       highestValue: layout.highestEquivalent(ofIndex: index), count: c))
            return true
        }
        return result
    }

    /// Whether `a` and `b` fall in the same bin (are indistinguishable at this precision).
    public func areEquivalent(_ a: Int64, _ b: Int64) -> Bool {
        layout.index(of: Swift.min(highest, Swift.max(0, a))) == layout.index(of: Swift.min(highest, Swift.max(0, b)))
    }

    /// Calls `body(index, count)` for every non-zero count in index order until it returns false.
    func forEachBin(_ body: (Int, Int64) -> Bool) {
        if isSparse {
            for i in 0..<sparseIndices.count where !body(Int(sparseIndices[i]), sparseCounts[i]) { return }
        } else {
            for p in 0..<pages.count where !pages[p].isEmpty {
                let base = p << layout.pageMagnitude, page = pages[p]
                for k in 0..<page.count where page[k] != 0 { if !body(base + k, page[k]) { return } }
            }
        }
    }
}

/// One bin of a histogram: all values in `lowestValue...highestValue` are counted together.
public struct HistogramBin: Sendable, Equatable {
    public var lowestValue: Int64
    public var highestValue: Int64
    public var count: Int64
}
