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

    static func value(_ v: JSONValue) -> JSONValue {
        switch v {
        case let .object(o):
            var out: [String: JSONValue] = [:]
            for (k, x) in o { out[k] = secretKeys.contains(k) ? .string("<redacted>") : value(x) }
            return .object(out)
        case let .array(a): return .array(a.map(value))
        default: return v
        }
    }

    static func excerpt(_ v: JSONValue?, limit: Int = 240) -> String {
        guard let v else { return "" }
        return cut(value(v).serialized(), limit)
    }

    /// `excerpt` at two limits from one serialisation (the trace's digest and its excerpt).
    static func excerpts(_ v: JSONValue?, limits a: Int, _ b: Int) -> (String, String) {
        guard let v else { return ("", "") }
        let s = value(v).serialized()
        return (cut(s, a), cut(s, b))
    }

    private static func cut(_ s: String, _ limit: Int) -> String {
        s.count > limit ? String(s.prefix(limit)) + "…" : s
    }
}
