/// A strict RFC 8259 parser into `JSONValue`, with errors that say where the input went wrong.
///
/// Depth is limited so that a hostile server cannot crash the bench with a deeply nested body.
public struct JSONParseError: Error, Sendable, CustomStringConvertible {
    public let offset: Int
    public let reason: String
    public var description: String { "invalid JSON at byte \(offset): \(reason)" }
    /// The text is JSON-shaped but a string holds bytes that are not UTF-8 (RFC 8259 §8.1
    /// requires UTF-8; decoding is strict, nothing is replaced by U+FFFD).
    public var isInvalidUTF8: Bool { reason == Self.invalidUTF8 }
    static let invalidUTF8 = "invalid UTF-8 in string"
}

extension JSONValue {
    public static let maxDepth = 256

    public static func parse(_ text: String) throws(JSONParseError) -> JSONValue {
        try parse(Array(text.utf8))
    }

    public static func parse(_ bytes: [UInt8]) throws(JSONParseError) -> JSONValue {
        // Over the array's buffer: indexing an array checks bounds and keeps its storage alive
        // per byte; the parser does its own bounds checks (every answer is parsed once).
        let r: Result<JSONValue, JSONParseError> = bytes.withUnsafeBufferPointer { buf in
            var p = Parser(bytes: buf)
            return Result { () throws(JSONParseError) in
                p.skipSpace()
                let v = try p.value(depth: 0)
                p.skipSpace()
                guard p.i == buf.count else { throw JSONParseError(offset: p.i, reason: "trailing characters") }
                return v
            }
        }
        return try r.get()
    }
}

private struct Parser {
    let bytes: UnsafeBufferPointer<UInt8>
    var i = 0
    /// Members reserved per object. An object's array is its own and becomes the object's
    /// members as it is (a shared buffer of members, copied out at each object's end, cost ~2.5k
    /// instructions a request in retains, releases and the runtime's generic destroy). Room for
    /// the API's objects (up to ~10 members) makes most of them one allocation. Not in a large
    /// document: 16 MB of `{"a":1},` from a hostile server is 2 M objects, which at 512 bytes each
    /// (12 members' room) would be ~1 GB; grown from empty, as they are then, ~80 bytes each.
    let membersReserved: Int

    init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
        membersReserved = bytes.count <= 64 << 10 ? 12 : 0
    }

    mutating func skipSpace() {
        while i < bytes.count, bytes[i] == 0x20 || bytes[i] == 0x0a || bytes[i] == 0x0d || bytes[i] == 0x09 { i += 1 }
    }

    func fail(_ reason: String) -> JSONParseError { JSONParseError(offset: i, reason: reason) }

    mutating func value(depth: Int) throws(JSONParseError) -> JSONValue {
        guard depth < JSONValue.maxDepth else { throw fail("nesting deeper than \(JSONValue.maxDepth)") }
        guard i < bytes.count else { throw fail("unexpected end of input") }
        switch bytes[i] {
        case UInt8(ascii: "{"): return try object(depth: depth)
        case UInt8(ascii: "["): return try array(depth: depth)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        default: return try number()
        }
    }

    mutating func literal(_ word: StaticString) throws(JSONParseError) {
        let n = word.utf8CodeUnitCount
        guard i + n <= bytes.count else { throw fail("unexpected token") }
        let w = word.utf8Start
        for k in 0..<n where bytes[i + k] != w[k] { throw fail("unexpected token") }
        i += n
    }

    mutating func object(depth: Int) throws(JSONParseError) -> JSONValue {
        i += 1
        skipSpace()
        if i < bytes.count, bytes[i] == UInt8(ascii: "}") { i += 1; return .object([:]) }
        var members: [JSONObject.Member] = []
        members.reserveCapacity(membersReserved)
        while true {
            skipSpace()
            guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") else { throw fail("expected a string key") }
            let k = try string()
            skipSpace()
            guard i < bytes.count, bytes[i] == UInt8(ascii: ":") else { throw fail("expected ':'") }
            i += 1
            skipSpace()
            let v = try value(depth: depth + 1)
            members.append(JSONObject.Member(key: k, value: v))
            skipSpace()
            guard i < bytes.count else { throw fail("unterminated object") }
            if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
            if bytes[i] == UInt8(ascii: "}") { i += 1; break }
            throw fail("expected ',' or '}'")
        }
        return .object(JSONObject(parsed: members))  // a repeated key: the last one wins
    }

    mutating func array(depth: Int) throws(JSONParseError) -> JSONValue {
        i += 1
        var a: [JSONValue] = []
        skipSpace()
        if i < bytes.count, bytes[i] == UInt8(ascii: "]") { i += 1; return .array(a) }
        while true {
            skipSpace()
            a.append(try value(depth: depth + 1))
            skipSpace()
            guard i < bytes.count else { throw fail("unterminated array") }
            if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
            if bytes[i] == UInt8(ascii: "]") { i += 1; return .array(a) }
            throw fail("expected ',' or ']'")
        }
    }

    mutating func hex4() throws(JSONParseError) -> UInt32 {
        guard i + 4 <= bytes.count else { throw fail("short \\u escape") }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let c = bytes[i]
            let d: UInt32
            switch c {
            case 48...57: d = UInt32(c - 48)
            case 97...102: d = UInt32(c - 87)
            case 65...70: d = UInt32(c - 55)
            default: throw fail("bad hex digit in \\u escape")
            }
            v = v << 4 | d
            i += 1
        }
        return v
    }

    mutating func string() throws(JSONParseError) -> String {
        i += 1
        let start = i
        // Fast path: no escapes. Eight bytes a step while they are plain ASCII, then byte by byte.
        var ascii = true
        i = JSONScan.plainASCIIPrefix(bytes, from: i)
        while i < bytes.count {
            let c = bytes[i]
            if c == UInt8(ascii: "\"") || c == UInt8(ascii: "\\") || c < 0x20 { break }
            if c >= 0x80 { ascii = false }
            i += 1
        }
        guard i < bytes.count else { throw fail("unterminated string") }
        if bytes[i] == UInt8(ascii: "\"") {
            i += 1
            let b = UnsafeBufferPointer(rebasing: bytes[start..<(i - 1)])
            return ascii ? Self.asciiString(b) : try strict(b, at: start)
        }
        var out = Array(UnsafeBufferPointer(rebasing: bytes[start..<i]))
        while true {
            guard i < bytes.count else { throw fail("unterminated string") }
            let c = bytes[i]
            if c == UInt8(ascii: "\"") { i += 1; break }
            if c < 0x20 { throw fail("control character in string") }
            if c != UInt8(ascii: "\\") { out.append(c); i += 1; continue }
            i += 1
            guard i < bytes.count else { throw fail("unterminated escape") }
            let e = bytes[i]
            i += 1
            switch e {
            case UInt8(ascii: "\""): out.append(0x22)
            case UInt8(ascii: "\\"): out.append(0x5c)
            case UInt8(ascii: "/"): out.append(0x2f)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0c)
            case UInt8(ascii: "n"): out.append(0x0a)
            case UInt8(ascii: "r"): out.append(0x0d)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = try hex4()
                if scalar >= 0xD800, scalar < 0xDC00 {
                    guard i + 1 < bytes.count, bytes[i] == UInt8(ascii: "\\"), bytes[i + 1] == UInt8(ascii: "u") else {
                        throw fail("lone high surrogate")
                    }
                    i += 2
                    let low = try hex4()
                    guard low >= 0xDC00, low < 0xE000 else { throw fail("bad low surrogate") }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                }
                guard let u = Unicode.Scalar(scalar) else { throw fail("invalid code point") }
                out.append(contentsOf: Array(String(Character(u)).utf8))
            default: throw fail("unknown escape")
            }
        }
        return try out.withUnsafeBufferPointer { b throws(JSONParseError) in try strict(b, at: start) }
    }


    /// Bytes known to be ASCII as a String. Written into the string's own storage: a short one
    /// (≤ 15 bytes, most keys and codes) is then made inline with no validation pass, where
    /// `String(decoding:as:)` checked every byte for ASCII again and then copied them.
    static func asciiString(_ b: UnsafeBufferPointer<UInt8>) -> String {
        guard let from = b.baseAddress, !b.isEmpty else { return "" }
        return String(unsafeUninitializedCapacity: b.count) { out in
            out.baseAddress!.initialize(from: from, count: b.count)
            return b.count
        }
    }

    /// The bytes as a String, or an error when they are not valid UTF-8 (never U+FFFD-replaced).
    func strict(_ b: UnsafeBufferPointer<UInt8>, at offset: Int) throws(JSONParseError) -> String {
        // ASCII needs no validation; most strings from the API are ASCII ids and codes.
        if b.allSatisfy({ $0 < 0x80 }) { return String(decoding: b, as: UTF8.self) }
        guard let s = String(validating: b, as: UTF8.self) else {
            throw JSONParseError(offset: offset, reason: JSONParseError.invalidUTF8)
        }
        return s
    }

    mutating func number() throws(JSONParseError) -> JSONValue {
        let start = i
        if i < bytes.count, bytes[i] == UInt8(ascii: "-") { i += 1 }
        var digits = 0, whole = 0
        while i < bytes.count, bytes[i] >= 48, bytes[i] <= 57 {
            if digits < 15 { whole = whole * 10 + Int(bytes[i] - 48) }
            i += 1; digits += 1
        }
        guard digits > 0 else { throw fail("unexpected character") }
        // Most numbers in the API's answers are small integers: up to 15 digits one is exact as
        // a Double and needs no detour through a String and strtod.
        if digits <= 15, i == bytes.count || (bytes[i] != UInt8(ascii: ".") && bytes[i] | 0x20 != UInt8(ascii: "e")) {
            return .number(bytes[start] == UInt8(ascii: "-") ? -Double(whole) : Double(whole))
        }
        if i < bytes.count, bytes[i] == UInt8(ascii: ".") {
            i += 1
            var frac = 0
            while i < bytes.count, bytes[i] >= 48, bytes[i] <= 57 { i += 1; frac += 1 }
            guard frac > 0 else { throw fail("digits expected after '.'") }
        }
        if i < bytes.count, bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") {
            i += 1
            if i < bytes.count, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i += 1 }
            var exp = 0
            while i < bytes.count, bytes[i] >= 48, bytes[i] <= 57 { i += 1; exp += 1 }
            guard exp > 0 else { throw fail("digits expected in exponent") }
        }
        guard let d = Double(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<i]), as: UTF8.self)) else { throw fail("bad number") }
        return .number(d)
    }
}

/// Byte scans shared by the parser and the serialiser.
enum JSONScan {
    /// The index of the first byte from `from` that is a quote, a backslash, a control byte or
    /// not ASCII, found eight bytes a step (the lowest flagged byte of a word is exact: the
    /// borrows of the zero-byte test only flag bytes above a true hit); the byte loop goes on from
    /// there, and from the last whole word. A byte loop was ~5 instructions a byte of every string.
    static func plainASCIIPrefix(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        guard let base = bytes.baseAddress else { return start }
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        var i = start
        while i + 8 <= bytes.count {
            let w = UInt64(littleEndian: UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self))
            let quote = w ^ (ones &* 0x22), backslash = w ^ (ones &* 0x5c)
            let flagged = ((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash)
                | ((w &- ones &* 0x20) & ~w) | w
            let hits = flagged & highs
            if hits != 0 { return i + hits.trailingZeroBitCount / 8 }
            i += 8
        }
        return i
    }
}
