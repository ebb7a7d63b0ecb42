// Merging, storage form changes and equality of histograms.

extension Histogram {
    /// Adds every count of `other` to this histogram.
    ///
    /// Exact when both share a layout (the normal case: every Fleet histogram uses the defaults).
    /// A histogram of another layout (a results file written with other settings) is re-recorded
    /// bin by bin at each bin's middle value, which is as exact as that layout allows.
    public mutating func merge(_ other: Histogram) {
        guard other.count > 0 else { return }
        guard other.layout == layout && other.highest == highest else {
            let before = (sum: sum, min: minValue, max: maxValue)
            other.forEachBin { index, c in
                record(other.layout.medianEquivalent(ofIndex: index), count: c)
                return true
            }
            // Keep the exact extremes and sum the other side knew, not the bins' middles.
            sum = before.sum &+ other.sum
            minValue = Swift.min(before.min, Swift.min(highest, other.minValue))
            maxValue = Swift.max(before.max, Swift.min(highest, other.maxValue))
            clamped &+= other.clamped
            return
        }
        if isSparse && other.isSparse {
            mergeSparse(other)
        } else {
            if isSparse { densify() }
            if other.isSparse {
                for k in 0..<other.sparseIndices.count {
                    addDense(index: Int(other.sparseIndices[k]), count: other.sparseCounts[k])
                }
            } else {
                // Dense into dense (the recorder adding up its shards): a page this side lacks is
                // shared (copy on write), one both have is added in one pass.
                if other.pages.count > pages.count {
                    pages.append(contentsOf: repeatElement([], count: other.pages.count - pages.count))
                }
                for p in 0..<other.pages.count where !other.pages[p].isEmpty {
                    if pages[p].isEmpty { pages[p] = other.pages[p]; continue }
                    pages[p].withUnsafeMutableBufferPointer { d in
                        other.pages[p].withUnsafeBufferPointer { o in
                            for i in 0..<o.count { d[i] &+= o[i] }
                        }
                    }
                }
            }
        }
        count &+= other.count
        sum &+= other.sum
        clamped &+= other.clamped
        minValue = Swift.min(minValue, other.minValue)
        maxValue = Swift.max(maxValue, other.maxValue)
    }

    /// Merges two sparse forms into one sparse form without allocating a dense array. Written
    /// into uninitialised storage: appending element by element, with its capacity and bounds
    /// checks, was ~1.2k instructions a merge of two small windows (the recorder merges every
    /// window of every metric as it closes, once per shard that saw it).
    private mutating func mergeSparse(_ other: Histogram) {
        let n = sparseIndices.count, m = other.sparseIndices.count
        guard m > 0 else { return }
        guard n > 0 else { sparseIndices = other.sparseIndices; sparseCounts = other.sparseCounts; return }
        var merged = 0
        let counts = [Int64](unsafeUninitializedCapacity: n + m) { cOut, cCount in
            sparseIndices = [Int32](unsafeUninitializedCapacity: n + m) { iOut, iCount in
                sparseIndices.withUnsafeBufferPointer { ai in sparseCounts.withUnsafeBufferPointer { ac in
                other.sparseIndices.withUnsafeBufferPointer { bi in other.sparseCounts.withUnsafeBufferPointer { bc in
                    var i = 0, j = 0, k = 0
                    while i < n && j < m {
                        if ai[i] < bi[j] { iOut[k] = ai[i]; cOut[k] = ac[i]; i += 1 }
                        else if bi[j] < ai[i] { iOut[k] = bi[j]; cOut[k] = bc[j]; j += 1 }
                        else { iOut[k] = ai[i]; cOut[k] = ac[i] &+ bc[j]; i += 1; j += 1 }
                        k += 1
                    }
                    while i < n { iOut[k] = ai[i]; cOut[k] = ac[i]; i += 1; k += 1 }
                    while j < m { iOut[k] = bi[j]; cOut[k] = bc[j]; j += 1; k += 1 }
                    merged = k
                }}}}
                iCount = merged
            }
            cCount = merged
        }
        sparseCounts = counts
    }

    /// Switches to the dense form (recording past `sparseRecordingSamples` needs it).
    mutating func densify() {
        guard isSparse else { return }
        pages = []
        for k in 0..<sparseIndices.count { addDense(index: Int(sparseIndices[k]), count: sparseCounts[k]) }
        sparseIndices = []
        sparseCounts = []
        isSparse = false
    }

    /// Switches to the sparse form: memory in proportion to the distinct bins used, not the range.
    public mutating func compact() {
        guard !isSparse else { return }
        // A window of few samples (the recorder compacts each busy one every second) reserves
        // its arrays at once: it has at most `count` bins. A large histogram appends as it goes;
        // counting its bins first would scan its counts twice.
        var indices: [Int32] = [], counts: [Int64] = []
        if count <= 512 {
            indices.reserveCapacity(Int(count))
            counts.reserveCapacity(Int(count))
        }
        for p in 0..<pages.count where !pages[p].isEmpty {
            let base = p << layout.pageMagnitude
            pages[p].withUnsafeBufferPointer { d in
                for k in 0..<d.count where d[k] != 0 {
                    indices.append(Int32(base + k))
                    counts.append(d[k])
                }
            }
        }
        sparseIndices = indices
        sparseCounts = counts
        pages = []
        isSparse = true
    }

    /// A sparse copy, for results that are kept or written (see `compact()`).
    public func compacted() -> Histogram {
        var h = self
        h.compact()
        return h
    }

    /// The (index, count) pairs of every non-empty bin, in index order.
    func nonZeroBins() -> [(index: Int, count: Int64)] {
        var out: [(index: Int, count: Int64)] = []
        forEachBin { out.append(($0, $1)); return true }
        return out
    }
}

extension Histogram: Equatable {
    /// Equal when the layout, the summary figures and every bin count are equal, whatever the storage form.
    public static func == (a: Histogram, b: Histogram) -> Bool {
        guard a.layout == b.layout, a.highest == b.highest, a.lowest == b.lowest,
              a.count == b.count, a.sum == b.sum, a.clamped == b.clamped,
              a.min == b.min, a.max == b.max else { return false }
        let x = a.nonZeroBins(), y = b.nonZeroBins()
        guard x.count == y.count else { return false }
        for k in 0..<x.count where x[k].index != y[k].index || x[k].count != y[k].count { return false }
        return true
    }
}

extension Histogram: CustomStringConvertible {
    /// A one-line summary (test failures and logs stay readable; the bins are in the JSON form).
    public var description: String {
        let p = values(atPercentiles: [50, 99])
        return "Histogram(count: \(count), min: \(min), p50: \(p[0]), p99: \(p[1]), max: \(max), sum: \(sum), clamped: \(clamped), bins: \(nonZeroBins().count))"
    }
}
