import FleetCore

/// One line of a user's trace (`traces/user-<K>.jsonl`): an exchange or a decision.
public struct TraceEntry: Sendable {
    public var seq: Int
    /// Milliseconds from the run's start: when the request was meant to go out, went out, ended.
    public var intendedMs: Double
    public var actualMs: Double
    public var endMs: Double
    public var what: String
    public var path: String
    public var status: Int?
    /// A short digest of the answer and its first characters, with tokens and signed transactions redacted.
    public var digest: String
    public var excerpt: String

    func json() -> String {
        var o: [String: JSONValue] = ["seq": .number(Double(seq)), "what": .string(what)]
        if !path.isEmpty {
            o["intended_ms"] = .number(intendedMs.rounded()); o["actual_ms"] = .number(actualMs.rounded())
            o["end_ms"] = .number(endMs.rounded()); o["path"] = .string(path)
            o["status"] = status.map { .number(Double($0)) } ?? .null
            o["digest"] = .string(digest); o["excerpt"] = .string(excerpt)
        }
        return JSONValue.object(o).serialized()
    }
}

/// The last `capacity` entries of one user (a ring: memory stays bounded however long it walks).
struct TraceRing {
    let capacity: Int
    private var items: [TraceEntry] = []
    private var head = 0
    private(set) var count = 0

    init(capacity: Int) { self.capacity = max(1, capacity) }

    mutating func append(_ e: TraceEntry) {
        count += 1
        if items.count < capacity { items.append(e); return }
        items[head] = e
        head = (head + 1) % capacity
    }

    var entries: [TraceEntry] { Array(items[head...] + items[..<head]) }

    mutating func release() { items = []; head = 0 }
}

/// Tokens, refresh tokens, push tokens and signed transactions never reach a trace.
enum Redact {
    static let secretKeys: Set<String> = ["access_token", "refresh_token", "signed_transaction", "token"]

    /// A trace line's digest (of the whole redacted answer, 12 hex digits) and its excerpt (the
    /// first `limit` characters), from one redacting serialisation into bytes. The digest tells
    /// answers apart at a glance; it protects nothing, so it is FNV-1a (64 bits, first 48 shown),
    /// not SHA-256, which cost 2 % of the bench's CPU when it was taken of every answer.
    static func digestAndExcerpt(_ v: JSONValue?, limit: Int) -> (digest: String, excerpt: String) {
        guard let v else { return ("", "") }
        let bytes = v.serializedBytes(redacting: secretKeys, as: "<redacted>")
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in bytes { h = (h ^ UInt64(b)) &* 0x100_0000_01b3 }
        let digest = Hex.encode((0..<6).map { UInt8(truncatingIfNeeded: h >> (56 - 8 * $0)) })
        // Serialised JSON is mostly ASCII: when the first `limit + 1` bytes are ASCII (and hold no
        // CR, which joins a following LF into one character), they are `limit + 1` characters,
        // so the cut needs no grapheme walk (which cost more than the serialisation).
        let probe = min(bytes.count, limit + 1)
        if !bytes[..<probe].contains(where: { $0 >= 0x80 || $0 == 0x0d }) {
            let text = String(decoding: bytes[..<min(bytes.count, limit)], as: UTF8.self)
            return (digest, bytes.count > limit ? text + "…" : text)
        }
        // A scalar is at most 4 bytes: decoding that many is usually enough to cut `limit`
        // characters; long runs of combining marks (several scalars per character) fall back to all.
        let headBytes = 4 * limit + 4
        if bytes.count > headBytes {
            let head = String(decoding: bytes[..<headBytes], as: UTF8.self)
            if head.count > limit { return (digest, cut(head, limit)) }
        }
        return (digest, cut(String(decoding: bytes, as: UTF8.self), limit))
    }

    private static func cut(_ s: String, _ limit: Int) -> String {
        s.count > limit ? String(s.prefix(limit)) + "…" : s
    }
}
