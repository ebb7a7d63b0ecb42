import Foundation

/// Encodes an `Encodable` value as compact JSON bytes in one pass, writing each member as its
/// `encode(to:)` hands it over. Foundation's `JSONEncoder` first builds a tree of boxed values
/// (a reference container for every object and array, a dictionary insert for every key) and then
/// serialises it: for the result stream's line each second (bench/instructions.sh, 2026-12-08)
/// that was ~3.5 M instructions, a third of the I/O threads' whole work at 16 users (~1.5 M now).
///
/// What it writes decodes with `JSONDecoder` to the same value; keys come in the order the value
/// encodes them (no `sortedKeys`, no pretty printing: use `JSONEncoder` for files people diff).
/// Containers are closed when a member is next written to an enclosing one, so it relies on what
/// synthesized and ordinary conformances do — finish a nested container before going on with its
/// parent. A conformance that does otherwise (goes back to a container after writing to its
/// parent, asks for a super encoder), or a value whose `JSONEncoder` form is a strategy's choice
/// (`Data`, `Date`, `URL`, `Decimal`), makes `encode` throw `StreamingJSON.Unsupported`, and
/// `encode(_:orWith:)` write it with the `JSONEncoder` it is given. A non-finite floating-point
/// number throws, as `JSONEncoder`'s default does. Coding paths are not tracked (errors name no path).
public enum StreamingJSON {
    public struct Unsupported: Error, CustomStringConvertible {
        public let description: String
    }

    /// `encode(value)`, or `encoder`'s form of it where one pass cannot write it (`Unsupported`).
    /// Any other error (a non-finite number) is thrown: `encoder` would refuse it too.
    public static func encode<T: Encodable>(_ value: T, orWith encoder: JSONEncoder) throws -> [UInt8] {
        do { return try encode(value) } catch is Unsupported { return Array(try encoder.encode(value)) }
    }

    public static func encode<T: Encodable>(_ value: T) throws -> [UInt8] {
        let sink = JSONSink()
        try sink.value(value, depth: 0)
        if let failure = sink.failure { throw failure }
        return sink.out
    }
}

/// The bytes written so far and the containers still open, outermost first. A container is named
/// by its depth (its index in `open`) and the id it was opened with, so a container that was
/// closed (a sibling written after it) is told apart from a new one at the same depth.
final class JSONSink {
    struct Frame {
        var id: Int
        var object: Bool
        var count: Int
    }

    var out: [UInt8] = []
    var open: [Frame] = []
    private var lastID = 0
    /// The first misuse met in a non-throwing call (`container(keyedBy:)`, nested containers);
    /// every later write fails with it and `StreamingJSON.encode` throws it.
    var failure: Error?

    init() { out.reserveCapacity(4096) }

    func fail(_ why: String) {
        if failure == nil { failure = StreamingJSON.Unsupported(description: why) }
    }

    /// Writes the closing brackets of every container deeper than `depth`.
    func close(deeperThan depth: Int) {
        while open.count > depth + 1 { out.append(open.removeLast().object ? UInt8(ascii: "}") : UInt8(ascii: "]")) }
    }

    /// Makes container (`depth`, `id`) the innermost open one and writes the separator before its
    /// next member.
    func member(depth: Int, id: Int) throws {
        if let failure { throw failure }
        close(deeperThan: depth)
        guard depth >= 0, open.count == depth + 1, open[depth].id == id else {
            fail("a container was written to after a later one in its parent")
            throw failure!
        }
        if open[depth].count > 0 { out.append(UInt8(ascii: ",")) }
        open[depth].count += 1
    }

    func key(_ key: some CodingKey) { JSONValue.writeString(key.stringValue, to: &out); out.append(UInt8(ascii: ":")) }

    /// Opens a container in the slot at `depth` (nothing deeper may be open); returns its id.
    func openContainer(object: Bool, depth: Int) throws -> Int {
        if let failure { throw failure }
        guard open.count == depth else {
            fail("a container was asked for where a value was already written")
            throw failure!
        }
        lastID += 1
        open.append(Frame(id: lastID, object: object, count: 0))
        out.append(object ? UInt8(ascii: "{") : UInt8(ascii: "["))
        return lastID
    }

    /// Writes `value` into the slot at `depth` (after its key or separator).
    func value<T: Encodable>(_ value: T, depth: Int) throws {
        // Metadata comparisons, not `as?` casts: a dynamic cast per dictionary value or array
        // element cost more than writing it.
        if T.self == String.self { JSONValue.writeString(value as! String, to: &out); return }
        if T.self == Int.self { JSONValue.writeInteger(Int64(value as! Int), to: &out); return }
        if T.self == Int64.self { JSONValue.writeInteger(value as! Int64, to: &out); return }
        if T.self == Double.self { try double(value as! Double); return }
        if T.self == Bool.self { bool(value as! Bool); return }
        if T.self == Data.self || T.self == Date.self || T.self == URL.self || T.self == Decimal.self {
            fail("\(T.self) takes a strategy of JSONEncoder's")
            throw failure!
        }
        let mark = out.count
        try value.encode(to: SlotEncoder(sink: self, depth: depth))
        if let failure { throw failure }
        close(deeperThan: depth - 1)
        if out.count == mark { out.append(UInt8(ascii: "{")); out.append(UInt8(ascii: "}")) }  // as JSONEncoder: nothing encoded is {}
    }

    func bool(_ b: Bool) { out.append(contentsOf: b ? JSONValue.trueBytes : JSONValue.falseBytes) }
    func null() { out.append(contentsOf: JSONValue.nullBytes) }

    func double(_ d: Double) throws {
        guard d.isFinite else {
            throw EncodingError.invalidValue(d, .init(codingPath: [], debugDescription: "\(d) is not representable in JSON"))
        }
        if d.rounded() == d, abs(d) < 1e15 { JSONValue.writeInteger(Int64(d), to: &out) } else { out.append(contentsOf: "\(d)".utf8) }
    }

    func unsigned(_ u: UInt64) {
        if u <= UInt64(Int64.max) { JSONValue.writeInteger(Int64(u), to: &out) } else { out.append(contentsOf: "\(u)".utf8) }
    }
}

/// The encoder of one slot: the top-level value, a member's value or an element.
final class SlotEncoder: Encoder {
    let sink: JSONSink
    let depth: Int
    /// The container this slot opened (a second request returns it, as `JSONEncoder` does for a
    /// subclass encoding after its superclass), or -1.
    private var openedID = -1
    private var openedObject = false
    var codingPath: [CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init(sink: JSONSink, depth: Int) {
        self.sink = sink
        self.depth = depth
    }

    private func opened(object: Bool) -> Int {
        if openedID >= 0 {
            if openedObject != object { sink.fail("one value asked for a keyed and an unkeyed container") }
            return openedID
        }
        do { openedID = try sink.openContainer(object: object, depth: depth) } catch { return -1 }
        openedObject = object
        return openedID
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(JSONKeyed<Key>(sink: sink, depth: depth, id: opened(object: true)))
    }

    func unkeyedContainer() -> UnkeyedEncodingContainer {
        JSONUnkeyed(sink: sink, depth: depth, id: opened(object: false))
    }

    func singleValueContainer() -> SingleValueEncodingContainer {
        JSONSingle(sink: sink, depth: depth, mark: sink.out.count)
    }
}

struct JSONKeyed<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let sink: JSONSink
    let depth: Int
    let id: Int
    var codingPath: [CodingKey] { [] }

    private func start(_ key: Key) throws { try sink.member(depth: depth, id: id); sink.key(key) }

    mutating func encodeNil(forKey key: Key) throws { try start(key); sink.null() }
    mutating func encode(_ value: Bool, forKey key: Key) throws { try start(key); sink.bool(value) }
    mutating func encode(_ value: String, forKey key: Key) throws { try start(key); JSONValue.writeString(value, to: &sink.out) }
    mutating func encode(_ value: Double, forKey key: Key) throws { try start(key); try sink.double(value) }
    mutating func encode(_ value: Float, forKey key: Key) throws { try start(key); try sink.double(Double(value)) }
    mutating func encode(_ value: Int, forKey key: Key) throws { try start(key); JSONValue.writeInteger(Int64(value), to: &sink.out) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { try start(key); JSONValue.writeInteger(Int64(value), to: &sink.out) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { try start(key); JSONValue.writeInteger(Int64(value), to: &sink.out) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { try start(key); JSONValue.writeInteger(Int64(value), to: &sink.out) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { try start(key); JSONValue.writeInteger(value, to: &sink.out) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { try start(key); sink.unsigned(UInt64(value)) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { try start(key); sink.unsigned(UInt64(value)) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { try start(key); sink.unsigned(UInt64(value)) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { try start(key); sink.unsigned(UInt64(value)) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { try start(key); sink.unsigned(value) }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws { try start(key); try sink.value(value, depth: depth + 1) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type,
                                                        forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        let nested = (try? start(key)).flatMap { try? sink.openContainer(object: true, depth: depth + 1) } ?? -1
        return KeyedEncodingContainer(JSONKeyed<NestedKey>(sink: sink, depth: depth + 1, id: nested))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> UnkeyedEncodingContainer {
        let nested = (try? start(key)).flatMap { try? sink.openContainer(object: false, depth: depth + 1) } ?? -1
        return JSONUnkeyed(sink: sink, depth: depth + 1, id: nested)
    }

    mutating func superEncoder() -> Encoder { sink.fail("superEncoder"); return SlotEncoder(sink: sink, depth: -1) }
    mutating func superEncoder(forKey key: Key) -> Encoder { superEncoder() }
}

/// The primitive writes an unkeyed container and a single-value container share: each starts
/// its element (`start`) and writes the value; a composite value goes in at `valueDepth`.
protocol JSONElementWriter {
    var sink: JSONSink { get }
    var valueDepth: Int { get }
    func start() throws
}

extension JSONElementWriter {
    mutating func encodeNil() throws { try start(); sink.null() }
    mutating func encode(_ value: Bool) throws { try start(); sink.bool(value) }
    mutating func encode(_ value: String) throws { try start(); JSONValue.writeString(value, to: &sink.out) }
    mutating func encode(_ value: Double) throws { try start(); try sink.double(value) }
    mutating func encode(_ value: Float) throws { try start(); try sink.double(Double(value)) }
    mutating func encode(_ value: Int) throws { try start(); JSONValue.writeInteger(Int64(value), to: &sink.out) }
    mutating func encode(_ value: Int8) throws { try start(); JSONValue.writeInteger(Int64(value), to: &sink.out) }
    mutating func encode(_ value: Int16) throws { try start(); JSONValue.writeInteger(Int64(value), to: &sink.out) }
    mutating func encode(_ value: Int32) throws { try start(); JSONValue.writeInteger(Int64(value), to: &sink.out) }
    mutating func encode(_ value: Int64) throws { try start(); JSONValue.writeInteger(value, to: &sink.out) }
    mutating func encode(_ value: UInt) throws { try start(); sink.unsigned(UInt64(value)) }
    mutating func encode(_ value: UInt8) throws { try start(); sink.unsigned(UInt64(value)) }
    mutating func encode(_ value: UInt16) throws { try start(); sink.unsigned(UInt64(value)) }
    mutating func encode(_ value: UInt32) throws { try start(); sink.unsigned(UInt64(value)) }
    mutating func encode(_ value: UInt64) throws { try start(); sink.unsigned(value) }
    mutating func encode<T: Encodable>(_ value: T) throws { try start(); try sink.value(value, depth: valueDepth) }
}

struct JSONUnkeyed: UnkeyedEncodingContainer, JSONElementWriter {
    let sink: JSONSink
    let depth: Int
    let id: Int
    var codingPath: [CodingKey] { [] }
    var count: Int { depth >= 0 && depth < sink.open.count && sink.open[depth].id == id ? sink.open[depth].count : 0 }
    var valueDepth: Int { depth + 1 }

    func start() throws { try sink.member(depth: depth, id: id) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let nested = (try? start()).flatMap { try? sink.openContainer(object: true, depth: depth + 1) } ?? -1
        return KeyedEncodingContainer(JSONKeyed<NestedKey>(sink: sink, depth: depth + 1, id: nested))
    }

    mutating func nestedUnkeyedContainer() -> UnkeyedEncodingContainer {
        let nested = (try? start()).flatMap { try? sink.openContainer(object: false, depth: depth + 1) } ?? -1
        return JSONUnkeyed(sink: sink, depth: depth + 1, id: nested)
    }

    mutating func superEncoder() -> Encoder { sink.fail("superEncoder"); return SlotEncoder(sink: sink, depth: -1) }
}

/// A slot's one value, written where the slot is.
struct JSONSingle: SingleValueEncodingContainer, JSONElementWriter {
    let sink: JSONSink
    let depth: Int
    /// Where the slot begins: a second value would follow the first.
    let mark: Int
    var codingPath: [CodingKey] { [] }
    var valueDepth: Int { depth }

    func start() throws {
        if let failure = sink.failure { throw failure }
        guard sink.out.count == mark, sink.open.count == depth else {
            sink.fail("a single-value container was written twice, or after a container")
            throw sink.failure!
        }
    }
}
