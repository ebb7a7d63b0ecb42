/// The JSON form of a histogram, stable and exact:
///
///     {"lowest":1,"highest":3600000000,"digits":3,"count":5,"sum":1234,"min":100,"max":400,
///      "clamped":0,"bins":[100,2,250,1,400,2]}
///
/// `bins` is a flat list of (counts index, count) pairs in increasing index order, so a window with
/// three samples costs three pairs whatever the value range. Decoding checks every invariant and
/// names the one that is broken, so a damaged results file is rejected rather than merged.
extension Histogram: Codable {
    private enum Keys: String, CodingKey {
        case lowest, highest, digits, count, sum, min, max, clamped, bins
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        try c.encode(lowest, forKey: .lowest)
        try c.encode(highest, forKey: .highest)
        try c.encode(significantDigits, forKey: .digits)
        try c.encode(count, forKey: .count)
        try c.encode(sum, forKey: .sum)
        try c.encode(min, forKey: .min)
        try c.encode(max, forKey: .max)
        try c.encode(clamped, forKey: .clamped)
        var flat: [Int64] = []
        forEachBin { index, n in flat.append(Int64(index)); flat.append(n); return true }
        try c.encode(flat, forKey: .bins)
    }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: Keys.self)
        let lowest = try c.decode(Int64.self, forKey: .lowest)
        let highest = try c.decode(Int64.self, forKey: .highest)
        let digits = try c.decode(Int.self, forKey: .digits)
        func bad(_ key: Keys, _ why: String) -> DecodingError {
            .dataCorruptedError(forKey: key, in: c, debugDescription: "histogram \(key.rawValue): \(why)")
        }
        guard lowest >= 1 else { throw bad(.lowest, "must be >= 1, got \(lowest)") }
        guard highest >= 2 * lowest else { throw bad(.highest, "must be >= 2 * lowest, got \(highest)") }
        guard (1...5).contains(digits) else { throw bad(.digits, "must be 1...5, got \(digits)") }
        self.init(lowest: lowest, highest: highest, significantDigits: digits)

        let total = try c.decode(Int64.self, forKey: .count)
        let flat = try c.decode([Int64].self, forKey: .bins)
        guard flat.count % 2 == 0 else { throw bad(.bins, "expected (index, count) pairs, got an odd length \(flat.count)") }
        var indices: [Int32] = []
        var counts: [Int64] = []
        indices.reserveCapacity(flat.count / 2)
        counts.reserveCapacity(flat.count / 2)
        var seen: Int64 = 0
        var k = 0
        while k < flat.count {
            let index = flat[k], n = flat[k + 1]
            guard index >= 0 && index < Int64(layout.countsLength) else {
                throw bad(.bins, "index \(index) outside 0..<\(layout.countsLength)")
            }
            guard indices.last.map({ Int64($0) < index }) ?? true else {
                throw bad(.bins, "indices must increase, \(index) follows \(indices.last!)")
            }
            guard n > 0 else { throw bad(.bins, "count at index \(index) must be > 0, got \(n)") }
            indices.append(Int32(index))
            counts.append(n)
            seen &+= n
            k += 2
        }
        guard seen == total else { throw bad(.count, "is \(total) but the bins hold \(seen)") }
        sparseIndices = indices
        sparseCounts = counts
        isSparse = true
        count = total
        sum = try c.decode(Int64.self, forKey: .sum)
        clamped = try c.decode(Int64.self, forKey: .clamped)
        if total > 0 {
            minValue = try c.decode(Int64.self, forKey: .min)
            maxValue = try c.decode(Int64.self, forKey: .max)
            guard minValue <= maxValue else { throw bad(.min, "\(minValue) is above max \(maxValue)") }
        }
    }
}
