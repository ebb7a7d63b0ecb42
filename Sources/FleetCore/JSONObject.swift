/// A JSON object's members, in document order, each key once.
///
/// A `[String: JSONValue]` hashed every key twice per answer: once when the parser built the
/// dictionary and once per lookup (SipHash over the key's bytes, ~350 instructions a key); in
/// `bench/instructions.sh` that was ~5k of the ~62k instructions the journey layer adds to a
/// request. The API's objects have a handful of short keys, and comparing two short (inline,
/// ≤ 15-byte) strings is one compare of their bits, so a scan of the members beats hashing them.
/// A hostile object with many keys costs one scan per lookup, never a quadratic parse: the parser
/// removes repeated keys through a hash set once an object is large (`JSONObject(parsed:)`).
///
/// It reads like the dictionary it replaces (`o["key"]`, literals, `for (k, v) in o`, `count`),
/// and equality ignores member order, as a dictionary's did.
public struct JSONObject: Sendable, Equatable, Sequence, ExpressibleByDictionaryLiteral {
    public typealias Element = (key: String, value: JSONValue)

    /// One member. A struct, not the `Element` tuple: an array of tuples is destroyed through
    /// the runtime's generic tuple path, a member at a time (~80 instructions each, with every
    /// answer's tree released once read: bench/instructions.sh), a struct's through its own
    /// destroy function.
    struct Member {
        var key: String
        var value: JSONValue
    }

    private var members: [Member]

    public init() { members = [] }

    /// Repeated keys in a literal keep the last value (a dictionary literal would trap).
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self.init(parsed: elements.map { Member(key: $0.0, value: $0.1) })
    }

    /// Members as parsed, in order; a repeated key keeps its first place and its last value
    /// (RFC 8259 leaves repeats open; the last one winning is what the dictionary did).
    init(parsed: [Member]) {
        // Pairwise up to a few dozen members; a hash set beyond, so a hostile object of many keys
        // stays linear to parse. Without a repeat (every answer of a sane server) the parser's
        // array becomes the members as it is. It is built of `Member`s: an array of other pairs
        // was converted element by element (~4k instructions a request), and inserting members
        // one by one through the subscript's setter regrew the array.
        if parsed.count <= 32 {
            if !Self.repeatsKey(parsed) { members = parsed; return }
            members = []
            for m in parsed { self[m.key] = m.value }
            return
        }
        members = []
        members.reserveCapacity(parsed.count)
        var at: [String: Int] = [:]
        at.reserveCapacity(parsed.count)
        for m in parsed {
            if let i = at[m.key] { members[i].value = m.value } else { at[m.key] = members.count; members.append(m) }
        }
    }

    /// Whether two members share a key (at most 32 members: `init(parsed:)`). The keys' lengths
    /// are read once into a stack buffer and compared as integers, and a bit per length seen (63
    /// and up share one) tells a key of a new length at once: only keys of one length are
    /// compared as strings, and an object whose keys all differ in length costs one pass.
    /// Comparing every pair read both lengths out of the strings each time (~500 instructions a
    /// request).
    private static func repeatsKey(_ m: [Member]) -> Bool {
        withUnsafeTemporaryAllocation(of: Int.self, capacity: m.count) { lengths in
            var seen: UInt64 = 0
            for i in m.indices {
                let n = m[i].key.utf8.count, bit: UInt64 = 1 << UInt64(Swift.min(n, 63))
                if seen & bit != 0 {
                    for j in 0..<i where lengths[j] == n && m[j].key == m[i].key { return true }
                }
                seen |= bit
                lengths[i] = n
            }
            return false
        }
    }

    /// Where `key` is. Only keys are read on the way: iterating the members copied each one,
    /// retaining and releasing every value passed over (~150 instructions a lookup).
    private func index(of key: String) -> Int? {
        let n = key.utf8.count
        return members.withUnsafeBufferPointer { b in
            for i in b.indices where b[i].key.utf8.count == n && b[i].key == key { return i }
            return nil
        }
    }

    public var count: Int { members.count }
    public var isEmpty: Bool { members.isEmpty }
    /// The keys in document (or insertion) order.
    public var keys: [String] { members.map(\.key) }
    public var values: [JSONValue] { members.map(\.value) }

    public subscript(key: String) -> JSONValue? {
        get { index(of: key).map { members[$0].value } }
        set {
            let i = index(of: key)
            switch (i, newValue) {
            case let (i?, v?): members[i].value = v
            case let (i?, nil): members.remove(at: i)
            case let (nil, v?): members.append(Member(key: key, value: v))
            case (nil, nil): break
            }
        }
    }

    @discardableResult
    public mutating func removeValue(forKey key: String) -> JSONValue? {
        guard let i = index(of: key) else { return nil }
        return members.remove(at: i).value
    }

    /// The members that pass `include`, as an object (a dictionary's `filter` kept its type too).
    public func filter(_ include: (Element) throws -> Bool) rethrows -> JSONObject {
        var o = JSONObject()
        o.members = try members.filter { try include(($0.key, $0.value)) }
        return o
    }

    public func makeIterator() -> Iterator { Iterator(base: members.makeIterator()) }

    /// The members in order, as `(key, value)` pairs.
    public struct Iterator: IteratorProtocol {
        var base: IndexingIterator<[Member]>
        public mutating func next() -> Element? { base.next().map { ($0.key, $0.value) } }
    }

    /// The members sorted by key, for the serialiser's deterministic bytes: the stored array
    /// itself when it is in key order already (the client writes its bodies' literals so), which
    /// spares a sorted copy of every request body (~400 instructions a request).
    var sortedMembers: [Member] {
        var i = 1
        while i < members.count, members[i - 1].key < members[i].key { i += 1 }
        return i >= members.count ? members : members.sorted { $0.key < $1.key }
    }

    public static func == (a: JSONObject, b: JSONObject) -> Bool {
        guard a.count == b.count else { return false }
        for m in a.members { guard let v = b[m.key], v == m.value else { return false } }
        return true
    }
}
