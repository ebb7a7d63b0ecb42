import FleetCore

/// The JSON form of a histogram, stable and exact:
///
///     {"count":5,"sum":1234,"min":100,"max":400,"bins":"ZAJWAZYBAg"}
///
/// `lowest`, `highest` and `digits` appear only when they differ from the defaults (1,
/// 3 600 000 000, 3), `clamped` only when not 0, and `sum`/`min`/`max` only when `count` > 0.
/// `bins` lists the non-empty bins in increasing index order as (index − previous index, count)
/// pairs, each an unsigned LEB128 varint, the bytes in unpadded base64url. A window with three
/// samples costs a few bytes whatever the value range, and a long run's file stays a fraction of
/// the size (and encoding time) of a JSON number list. Decoding also accepts the plain form, a flat
/// `[index, count, index, count, …]` number array, for hand-written fixtures. Decoding checks every
/// invariant and names the one that is broken, so a damaged results file is rejected, not merged.
extension Histogram: Codable {
    private enum Keys: String, CodingKey {
        case lowest, highest, digits, count, sum, min, max, clamped, bins
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        // Defaults are left out: a long run holds hundreds of thousands of window histograms.
        let d = Histogram.defaultLayout
        if lowest != d.lowest { try c.encode(lowest, forKey: .lowest) }
        if highest != d.highest { try c.encode(highest, forKey: .highest) }
        if significantDigits != d.digits { try c.encode(significantDigits, forKey: .digits) }
        try c.encode(count, forKey: .count)
        if count > 0 {
            try c.encode(sum, forKey: .sum)
            try c.encode(min, forKey: .min)
            try c.encode(max, forKey: .max)
        }
        if clamped != 0 { try c.encode(clamped, forKey: .clamped) }
        var bytes: [UInt8] = []
        var previous = 0
        forEachBin { index, n in
            Self.appendVarint(UInt64(index - previous), to: &bytes)
            Self.appendVarint(UInt64(n), to: &bytes)
            previous = index
            return true
        }
        try c.encode(Base64URL.encode(bytes), forKey: .bins)
    }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: Keys.self)
        let d = Histogram.defaultLayout
        let lowest = try c.decodeIfPresent(Int64.self, forKey: .lowest) ?? d.lowest
        let highest = try c.decodeIfPresent(Int64.self, forKey: .highest) ?? d.highest
        let digits = try c.decodeIfPresent(Int.self, forKey: .digits) ?? d.digits
        func bad(_ key: Keys, _ why: String) -> DecodingError {
            .dataCorruptedError(forKey: key, in: c, debugDescription: "histogram \(key.rawValue): \(why)")
        }
        guard lowest >= 1 else { throw bad(.lowest, "must be >= 1, got \(lowest)") }
        guard highest >= 2 * lowest else { throw bad(.highest, "must be >= 2 * lowest, got \(highest)") }
        guard (1...5).contains(digits) else { throw bad(.digits, "must be 1...5, got \(digits)") }
        self.init(lowest: lowest, highest: highest, significantDigits: digits)

        let total = try c.decode(Int64.self, forKey: .count)
        let flat: [Int64]
        if let packed = try? c.decode(String.self, forKey: .bins) {
            guard let bytes = Base64URL.decode(packed) else { throw bad(.bins, "is not base64url") }
            guard let pairs = Self.unpack(bytes) else { throw bad(.bins, "holds a truncated or oversized varint") }
            flat = pairs
        } else {
            flat = try c.decode([Int64].self, forKey: .bins)
        }
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
        sum = try c.decodeIfPresent(Int64.self, forKey: .sum) ?? 0
        clamped = try c.decodeIfPresent(Int64.self, forKey: .clamped) ?? 0
        if total > 0 {
            minValue = try c.decode(Int64.self, forKey: .min)
            maxValue = try c.decode(Int64.self, forKey: .max)
            guard minValue <= maxValue else { throw bad(.min, "\(minValue) is above max \(maxValue)") }
        }
    }

    private static func appendVarint(_ value: UInt64, to bytes: inout [UInt8]) {
        var v = value
        while v >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: v) | 0x80)
            v >>= 7
        }
        bytes.append(UInt8(v))
    }

    /// Varint (delta index, count) pairs back to absolute (index, count) numbers; nil when malformed.
    private static func unpack(_ bytes: [UInt8]) -> [Int64]? {
        var out: [Int64] = []
        var i = 0, index: Int64 = 0, odd = false
        while i < bytes.count {
            var v: UInt64 = 0, shift: UInt64 = 0
            while true {
                guard i < bytes.count, shift < 63 else { return nil }
                let b = bytes[i]
                i += 1
                v |= UInt64(b & 0x7F) << shift
                if b < 0x80 { break }
                shift += 7
            }
            guard v <= UInt64(Int64.max) else { return nil }
            if odd {
                out.append(Int64(v))
            } else {
                // Indices are bounded by the layout, checked by the caller; stop overflow here.
                let (sum, overflow) = index.addingReportingOverflow(Int64(v))
                guard !overflow else { return nil }
                index = sum
                out.append(index)
            }
            odd.toggle()
        }
        return out
    }
}
