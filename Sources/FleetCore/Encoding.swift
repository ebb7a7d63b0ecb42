/// Lower-case hexadecimal, the encoding of every digest the API exchanges.
public enum Hex {
    @usableFromInline static let digits = Array("0123456789abcdef".utf8)

    /// Inlinable so that each caller's collection type gets its own specialisation: the generic
    /// entry point walked the bytes through protocol witnesses, ~250 instructions a byte.
    @inlinable
    public static func encode<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
        var out = [UInt8]()
        out.reserveCapacity(bytes.count * 2)
        for b in bytes { out.append(digits[Int(b >> 4)]); out.append(digits[Int(b & 0x0f)]) }
        return String(decoding: out, as: UTF8.self)
    }

    /// The top `count` hex digits of `value` (at most 16), without an intermediate byte array:
    /// the checker takes one per answer.
    public static func encode(_ value: UInt64, digits count: Int) -> String {
        precondition((0...16).contains(count), "Hex.encode: at most 16 digits of a UInt64")
        return String(unsafeUninitializedCapacity: count) { out in
            for k in 0..<count { out[k] = digits[Int(truncatingIfNeeded: value >> (60 - 4 * k)) & 0x0f] }
            return count
        }
    }

    /// Nil when the string has odd length or a non-hex character.
    public static func decode(_ s: String) -> [UInt8]? {
        let u = Array(s.utf8)
        guard u.count % 2 == 0 else { return nil }
        func nibble(_ c: UInt8) -> UInt8? {
            switch c {
            case 48...57: return c - 48
            case 97...102: return c - 87
            case 65...70: return c - 55
            default: return nil
            }
        }
        var out = [UInt8]()
        out.reserveCapacity(u.count / 2)
        var i = 0
        while i < u.count {
            guard let hi = nibble(u[i]), let lo = nibble(u[i + 1]) else { return nil }
            out.append(hi << 4 | lo)
            i += 2
        }
        return out
    }
}

/// URL-safe base64 without padding (RFC 4648 §5), as JWS and signed transactions use it.
public enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    public static func encode<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
        let b = Array(bytes)
        var out = [UInt8]()
        out.reserveCapacity((b.count * 4 + 2) / 3)
        var i = 0
        while i + 3 <= b.count {
            let n = UInt32(b[i]) << 16 | UInt32(b[i + 1]) << 8 | UInt32(b[i + 2])
            for shift in [18, 12, 6, 0] { out.append(alphabet[Int((n >> UInt32(shift)) & 63)]) }
            i += 3
        }
        let rest = b.count - i
        if rest == 1 {
            let n = UInt32(b[i]) << 16
            out.append(alphabet[Int((n >> 18) & 63)]); out.append(alphabet[Int((n >> 12) & 63)])
        } else if rest == 2 {
            let n = UInt32(b[i]) << 16 | UInt32(b[i + 1]) << 8
            out.append(alphabet[Int((n >> 18) & 63)]); out.append(alphabet[Int((n >> 12) & 63)])
            out.append(alphabet[Int((n >> 6) & 63)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Nil on a character outside the URL-safe alphabet or an impossible length.
    public static func decode(_ s: String) -> [UInt8]? {
        var values = [UInt8]()
        values.reserveCapacity(s.utf8.count)
        for c in s.utf8 {
            switch c {
            case 65...90: values.append(c - 65)
            case 97...122: values.append(c - 71)
            case 48...57: values.append(c + 4)
            case 45: values.append(62)
            case 95: values.append(63)
            case 61: continue  // tolerate padding
            default: return nil
            }
        }
        if values.count % 4 == 1 { return nil }
        var out = [UInt8]()
        var i = 0
        while i + 4 <= values.count {
            let n = UInt32(values[i]) << 18 | UInt32(values[i + 1]) << 12 | UInt32(values[i + 2]) << 6 | UInt32(values[i + 3])
            out.append(UInt8(n >> 16)); out.append(UInt8(truncatingIfNeeded: n >> 8)); out.append(UInt8(truncatingIfNeeded: n))
            i += 4
        }
        let rest = values.count - i
        if rest >= 2 {
            var n = UInt32(values[i]) << 18 | UInt32(values[i + 1]) << 12
            if rest == 3 { n |= UInt32(values[i + 2]) << 6 }
            out.append(UInt8(n >> 16))
            if rest == 3 { out.append(UInt8(truncatingIfNeeded: n >> 8)) }
        }
        return out
    }
}
