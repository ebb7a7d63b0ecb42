/// A JSON document as a Sendable value, with a small parser and a deterministic serialiser.
///
/// The bench parses every response body; Foundation's `JSONSerialization` yields non-Sendable `Any`
/// trees that cannot cross the engine's queues under Swift 6, and typed `Codable` models would tie
/// the virtual users to one server's exact shapes (API.md: unknown fields are ignored). Objects keep
/// their keys in a dictionary; serialisation sorts keys, so equal documents give equal bytes.
public enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

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
    public var object: [String: JSONValue]? { if case let .object(o) = self { return o }; return nil }
    public var isNull: Bool { if case .null = self { return true }; return false }

    // MARK: Serialising

    /// Compact JSON with sorted keys.
    public func serialized() -> String {
        var out = ""
        write(to: &out)
        return out
    }

    public func serializedBytes() -> [UInt8] { Array(serialized().utf8) }

    private func write(to out: inout String) {
        switch self {
        case .null: out += "null"
        case let .bool(b): out += b ? "true" : "false"
        case let .number(n):
            if n.rounded() == n, abs(n) < 1e15 { out += String(Int64(n)) } else if n.isFinite { out += "\(n)" } else { out += "null" }
        case let .string(s): JSONValue.writeString(s, to: &out)
        case let .array(a):
            out += "["
            for (i, v) in a.enumerated() { if i > 0 { out += "," }; v.write(to: &out) }
            out += "]"
        case let .object(o):
            out += "{"
            for (i, k) in o.keys.sorted().enumerated() {
                if i > 0 { out += "," }
                JSONValue.writeString(k, to: &out)
                out += ":"
                o[k]!.write(to: &out)
            }
            out += "}"
        }
    }

    private static func writeString(_ s: String, to out: inout String) {
        out += "\""
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if u.value < 0x20 {
                    let h = String(u.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - h.count) + h
                } else {
                    out.unicodeScalars.append(u)
                }
            }
        }
        out += "\""
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
        self = .object(Dictionary(elements, uniquingKeysWith: { _, b in b }))
    }
    public init(nilLiteral: ()) { self = .null }

    /// This object with `key` set to `value` (a non-object becomes an object holding just that key).
    public func setting(_ key: String, _ value: JSONValue) -> JSONValue {
        var o = object ?? [:]
        o[key] = value
        return .object(o)
    }
}
