/// One value as SQLite stores it: the five storage classes.
public enum SQLiteValue: Sendable, Equatable, Hashable {
    case null
    case int(Int64)
    case double(Double)
    case text(String)
    case blob([UInt8])

    /// The value as an integer, or nil when it is not an integer.
    public var intValue: Int64? { if case .int(let v) = self { return v }; return nil }
    /// The value as text, or nil when it is not text.
    public var textValue: String? { if case .text(let v) = self { return v }; return nil }
    /// The value as a double (integers widen), or nil.
    public var doubleValue: Double? {
        switch self {
        case .double(let v): return v
        case .int(let v): return Double(v)
        default: return nil
        }
    }
    /// The value as bytes (text gives its UTF-8), or nil.
    public var blobValue: [UInt8]? {
        switch self {
        case .blob(let b): return b
        case .text(let s): return Array(s.utf8)
        default: return nil
        }
    }
    public var isNull: Bool { self == .null }
}

extension SQLiteValue: ExpressibleByIntegerLiteral, ExpressibleByStringLiteral, ExpressibleByNilLiteral,
    ExpressibleByFloatLiteral {
    public init(integerLiteral value: Int64) { self = .int(value) }
    public init(stringLiteral value: String) { self = .text(value) }
    public init(nilLiteral: ()) { self = .null }
    public init(floatLiteral value: Double) { self = .double(value) }
}

extension SQLiteValue {
    /// An integer value from any Swift integer.
    public static func integer<I: BinaryInteger>(_ v: I) -> SQLiteValue { .int(Int64(v)) }
    /// Text, or NULL for nil.
    public static func optionalText(_ s: String?) -> SQLiteValue { s.map { .text($0) } ?? .null }
    /// An integer, or NULL for nil.
    public static func optionalInt<I: BinaryInteger>(_ v: I?) -> SQLiteValue { v.map { .int(Int64($0)) } ?? .null }
}

/// One result row: values by column index, with typed accessors that fail loudly on a schema
/// mismatch (a programming error) by returning defaults only where the column allows NULL.
public struct SQLiteRow: Sendable {
    public let values: [SQLiteValue]

    public init(values: [SQLiteValue]) { self.values = values }

    public subscript(_ i: Int) -> SQLiteValue { values[i] }
    public func int(_ i: Int) -> Int64 { values[i].intValue ?? 0 }
    public func text(_ i: Int) -> String { values[i].textValue ?? "" }
    public func optionalText(_ i: Int) -> String? { values[i].textValue }
    public func optionalInt(_ i: Int) -> Int64? { values[i].intValue }
    public func double(_ i: Int) -> Double { values[i].doubleValue ?? 0 }
    public func blob(_ i: Int) -> [UInt8] { values[i].blobValue ?? [] }
}
