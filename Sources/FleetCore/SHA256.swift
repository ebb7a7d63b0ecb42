/// SHA-256 (FIPS 180-4), written here because the toolchain on Linux ships no crypto library
/// and the bench needs digests for upload checksums, presigned URLs and signed transactions.
public struct SHA256: Sendable {
    private static let k: [UInt32] = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
        0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
        0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
        0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
        0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
        0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
        0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
    ]

    private var h: (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32) =
        (0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19)
    private var buffer: [UInt8] = []
    private var length: UInt64 = 0

    public init() { buffer.reserveCapacity(64) }

    /// One-shot digest of a byte sequence.
    public static func digest<C: Collection>(_ data: C) -> [UInt8] where C.Element == UInt8 {
        var s = SHA256()
        s.update(data)
        return s.finalize()
    }

    /// Lower-case hex digest, the form the API exchanges.
    public static func hex<C: Collection>(_ data: C) -> String where C.Element == UInt8 {
        Hex.encode(digest(data))
    }

    public mutating func update<C: Collection>(_ data: C) where C.Element == UInt8 {
        length &+= UInt64(data.count)
        if let done = data.withContiguousStorageIfAvailable({ p -> Bool in
            absorb(UnsafeRawBufferPointer(p)); return true
        }), done { return }
        let copy = Array(data)
        copy.withUnsafeBytes { absorb($0) }
    }

    public mutating func update(_ raw: UnsafeRawBufferPointer) {
        length &+= UInt64(raw.count)
        absorb(raw)
    }

    private mutating func absorb(_ p: UnsafeRawBufferPointer) {
        var i = 0
        if !buffer.isEmpty {
            let take = min(64 - buffer.count, p.count)
            buffer.append(contentsOf: p[0..<take])
            i = take
            if buffer.count == 64 {
                buffer.withUnsafeBytes { compress($0.baseAddress!) }
                buffer.removeAll(keepingCapacity: true)
            }
        }
        while i + 64 <= p.count {
            compress(p.baseAddress! + i)
            i += 64
        }
        if i < p.count { buffer.append(contentsOf: p[i..<p.count]) }
    }

    public mutating func finalize() -> [UInt8] {
        let bitLength = length &* 8
        var pad: [UInt8] = [0x80]
        let rem = (buffer.count + 1) % 64
        pad.append(contentsOf: repeatElement(0, count: rem <= 56 ? 56 - rem : 120 - rem))
        for i in (0..<8).reversed() { pad.append(UInt8(truncatingIfNeeded: bitLength >> (UInt64(i) * 8))) }
        pad.withUnsafeBytes { absorb($0) }
        var out = [UInt8]()
        out.reserveCapacity(32)
        for word in [h.0, h.1, h.2, h.3, h.4, h.5, h.6, h.7] {
            out.append(UInt8(word >> 24)); out.append(UInt8(truncatingIfNeeded: word >> 16))
            out.append(UInt8(truncatingIfNeeded: word >> 8)); out.append(UInt8(truncatingIfNeeded: word))
        }
        return out
    }

    @inline(__always) private func rotr(_ x: UInt32, _ n: UInt32) -> UInt32 { (x >> n) | (x << (32 - n)) }

    private mutating func compress(_ block: UnsafeRawPointer) {
        var w = [UInt32](repeating: 0, count: 64)
        for t in 0..<16 {
            let b = block + t * 4
            w[t] = UInt32(b.load(as: UInt8.self)) << 24 | UInt32(b.load(fromByteOffset: 1, as: UInt8.self)) << 16
                | UInt32(b.load(fromByteOffset: 2, as: UInt8.self)) << 8 | UInt32(b.load(fromByteOffset: 3, as: UInt8.self))
        }
        for t in 16..<64 {
            let s0 = rotr(w[t - 15], 7) ^ rotr(w[t - 15], 18) ^ (w[t - 15] >> 3)
            let s1 = rotr(w[t - 2], 17) ^ rotr(w[t - 2], 19) ^ (w[t - 2] >> 10)
            w[t] = w[t - 16] &+ s0 &+ w[t - 7] &+ s1
        }
        var (a, b, c, d, e, f, g, hh) = h
        for t in 0..<64 {
            let s1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)
            let ch = (e & f) ^ (~e & g)
            let t1 = hh &+ s1 &+ ch &+ SHA256.k[t] &+ w[t]
            let s0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)
            let maj = (a & b) ^ (a & c) ^ (b & c)
            let t2 = s0 &+ maj
            hh = g; g = f; f = e; e = d &+ t1; d = c; c = b; b = a; a = t1 &+ t2
        }
        h = (h.0 &+ a, h.1 &+ b, h.2 &+ c, h.3 &+ d, h.4 &+ e, h.5 &+ f, h.6 &+ g, h.7 &+ hh)
    }
}

/// HMAC-SHA256 (RFC 2104): presigned upload URLs and sandbox-signed transactions.
public enum HMACSHA256 {
    public static func mac(key: [UInt8], message: [UInt8]) -> [UInt8] {
        var k = key.count > 64 ? SHA256.digest(key) : key
        k.append(contentsOf: repeatElement(0, count: 64 - k.count))
        var inner = SHA256()
        inner.update(k.map { $0 ^ 0x36 })
        inner.update(message)
        var outer = SHA256()
        outer.update(k.map { $0 ^ 0x5c })
        outer.update(inner.finalize())
        return outer.finalize()
    }

    public static func mac(key: String, message: String) -> [UInt8] {
        mac(key: Array(key.utf8), message: Array(message.utf8))
    }

    /// Compares two MACs in time independent of where they first differ.
    public static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var diff: UInt8 = 0
        for i in 0..<a.count { diff |= a[i] ^ b[i] }
        return diff == 0
    }
}
