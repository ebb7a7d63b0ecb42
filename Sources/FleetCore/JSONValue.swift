/// A JSON document as a Sendable value, with a small parser and a deterministic serialiser.
///
/// The bench parses every response body; Foundation's `JSONSerialization` yields non-Sendable `Any`
/// trees that cannot cross the engine's queues under Swift 6, and typed `Codable` models would tie
/// the virtual users to one server's exact shapes (API.md: unknown fields are ignored). Objects keep
/// their members in document order (`JSONObject`); serialisation sorts keys, so equal documents give
/// equal bytes.
public enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    // MARK: Access

    public subscript(key: String) -> JSONValue? {
        if case let .object(o) = self { return o[key] }
        return nil
    }

    public subscript(index: Int) -> JSONValue? {
        if case let .array(a) = self, index >= 0, index < a.count { return a[index] }
        return nil
    }

    public var string: String? { if case let .string(s) = self { return s }; return nil }
    public var double: Double? { if case let .number(n) = self { return n }; return nil }
    public var int: Int? {
        if case let .number(n) = self, n.rounded() == n, abs(n) < 9.0e15 { return Int(n) }
        return nil
    }
    public var bool: Bool? { if case let .bool(b) = self { return b }; return nil }
    public var array: [JSONValue]? { if case let .array(a) = self { return a }; return nil }
    public var object: JSONObject? { if case let .object(o) = self { return o }; return nil }
    public var isNull: Bool { if case .null = self { return true }; return false }

    // MARK: Serialising

    /// Compact JSON with sorted keys.
    public func serialized() -> String {
        String(decoding: serializedBytes(), as: UTF8.self)
    }

    public func serializedBytes() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(128)
        write(to: &out, redacting: nil, as: [])
        return out
    }

    /// `serializedBytes()` with the value of every object member named in `keys` (at any depth)
    /// written as the string `replacement`: one pass, no redacted copy of the document built.
    public func serializedBytes(redacting keys: Set<String>, as replacement: String) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(128)
        write(to: &out, redacting: keys, as: Array(replacement.utf8))
        return out
    }

    // Bytes, not `String` appends: a String grows through its unicode-scalar view one scalar at
    // a time, which made serialising the bench's busiest allocation-and-copy path (traces, request bodies).
    private func write(to out: inout [UInt8], redacting keys: Set<String>?, as replacement: [UInt8]) {
        switch self {
        case .null: out.append(contentsOf: Self.nullBytes)
        case let .bool(b): out.append(contentsOf: b ? Self.trueBytes : Self.falseBytes)
        case let .number(n):
            if n.rounded() == n, abs(n) < 1e15 { Self.writeInteger(Int64(n), to: &out) }
            else if n.isFinite { out.append(contentsOf: "\(n)".utf8) } else { out.append(contentsOf: Self.nullBytes) }
        case let .string(s): JSONValue.writeString(s, to: &out)
        case let .array(a):
            out.append(UInt8(ascii: "["))
            for (i, v) in a.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                v.write(to: &out, redacting: keys, as: replacement)
            }
            out.append(UInt8(ascii: "]"))
        case let .object(o):
            out.append(UInt8(ascii: "{"))
            // The members sorted by key, each with its value: no hash lookup per key.
            for (i, m) in o.sortedMembers.enumerated() {
                let k = m.key, v = m.value
                if i > 0 { out.append(UInt8(ascii: ",")) }
                JSONValue.writeString(k, to: &out)
                out.append(UInt8(ascii: ":"))
                if let keys, keys.contains(k) {
                    out.append(UInt8(ascii: "\"")); out.append(contentsOf: replacement); out.append(UInt8(ascii: "\""))
                } else {
                    v.write(to: &out, redacting: keys, as: replacement)
                }
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    static let nullBytes = Array("null".utf8), trueBytes = Array("true".utf8), falseBytes = Array("false".utf8)

    static func writeInteger(_ v: Int64, to out: inout [UInt8]) {
        if v < 0 { out.append(UInt8(ascii: "-")) }
        var m = v.magnitude, width = 1
        while m >= 10 { m /= 10; width += 1 }
        // Digits are written from the right into the bytes just appended (no temporary array).
        let end = out.count + width
        out.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: width))
        m = v.magnitude
        var i = end
        repeat { i -= 1; out[i] = UInt8(ascii: "0") + UInt8(m % 10); m /= 10 } while m > 0
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// Runs of bytes that need no escape go in with one copy each: a byte-at-a-time append (a
    /// capacity check per byte) was ~1.7k instructions a request body (bench/instructions.sh).
    static func writeString(_ s: String, to out: inout [UInt8]) {
        var s = s
        s.withUTF8 { b in
            out.append(UInt8(ascii: "\""))
            // UTF-8 bytes are copied as they are: only '"', '\\' and control bytes (all ASCII, never
            // part of a multi-byte sequence) need escaping. Whole words with none of them (nor
            // non-ASCII, which the byte step passes) are passed over eight bytes a step: a byte
            // loop was ~4 instructions a byte of every string of every request body.
            var run = 0, i = 0
            while true {
                let at = JSONScan.plainASCIIPrefix(b, from: i)
                guard at < b.count else { break }
                let c = b[at]
                i = at + 1
                guard c < 0x20 || c == UInt8(ascii: "\"") || c == UInt8(ascii: "\\") else { continue }
                out.append(contentsOf: UnsafeBufferPointer(rebasing: b[run..<at]))
                run = at + 1
                switch c {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"): out.append(UInt8(ascii: "\\")); out.append(c)
                case 0x0a: out.append(UInt8(ascii: "\\")); out.append(UInt8(ascii: "n"))
                case 0x0d: out.append(UInt8(ascii: "\\")); out.append(UInt8(ascii: "r"))
                case 0x09: out.append(UInt8(ascii: "\\")); out.append(UInt8(ascii: "t"))
                default:
                    out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
                                            hexDigits[Int(c >> 4)], hexDigits[Int(c & 0xf)]])
                }
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: b[run...]))
            out.append(UInt8(ascii: "\""))
        }
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByFloatLiteral, ExpressibleByNilLiteral {
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .number(Double(value)) }
    public init(floatLiteral value: Double) { self = .number(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(JSONObject(parsed: elements.map { JSONObject.Member(key: $0.0, value: $0.1) }))  // a repeated key: the last one wins
    }
    public init(nilLiteral: ()) { self = .null }

    /// This object with `key` set to `value` (a non-object becomes an object holding just that key).
    public func setting(_ key: String, _ value: JSONValue) -> JSONValue {
        var o = object ?? [:]
        o[key] = value
        return .object(o)
    }
}
