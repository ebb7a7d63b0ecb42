import FleetCore
#if canImport(Glibc)
import Glibc
#endif

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
    /// answers apart at a glance; it protects nothing, so it is a 64-bit multiply-xor hash (48
    /// bits shown, `digest(of:)`), not SHA-256, which cost 2 % of the bench's CPU when it was
    /// taken of every answer.
    static func digestAndExcerpt(_ v: JSONValue?, limit: Int) -> (digest: String, excerpt: String) {
        guard let v else { return ("", "") }
        return digestAndExcerpt(bytes: v.serializedBytes(redacting: secretKeys, as: "<redacted>"), limit: limit)
    }

    /// The same for an answer as it came (`raw`) and as parsed: taken of the raw bytes when no
    /// secret key can be in them, else of the redacted serialisation. Most answers hold no token,
    /// and serialising every parsed answer again was most of the checker's instructions per
    /// exchange (bench/instructions.sh). An answer that is not JSON (`parsed` nil) gets none, as before.
    static func digestAndExcerpt(raw: [UInt8], parsed: JSONValue?, limit: Int) -> (digest: String, excerpt: String) {
        guard parsed != nil else { return ("", "") }
        if !raw.isEmpty && !mayHoldSecret(raw) { return digestAndExcerpt(bytes: raw, limit: limit) }
        return digestAndExcerpt(parsed, limit: limit)
    }

    /// The secret keys that contain no other (`token`, `signed_transaction`): finding none of
    /// them finds none of `secretKeys`. Derived, so a key added there is searched for too. Each
    /// with the offset of its rarest letter in English text (`k` of token, `g` of
    /// signed_transaction), which the scan looks for: a common first letter (`t`, `s`) would stop
    /// it at most keys of most answers.
    private static let secretWords: [(word: [UInt8], probe: Int)] = secretKeys
        .filter { k in !secretKeys.contains { $0 != k && k.contains($0) } }
        .map { key in
            let word = Array(key.utf8), commonFirst = Array("etaoinsrhldcumfpgwybvkxjqz".utf8)
            let rarity = { (b: UInt8) in commonFirst.firstIndex(of: b) ?? -1 }
            return (word, word.indices.max { rarity(word[$0]) < rarity(word[$1]) }!)
        }

    /// Whether a secret key could be among the raw answer's keys: a key spells its letters
    /// plainly or as a `\u` escape. So an answer holding neither a `secretWords` entry nor a
    /// `\u` needs no redaction; one with them (even in a value) takes the redacting path.
    /// libc's `memchr` scans many bytes a step: a byte-at-a-time loop comparing each word at every
    /// letter cost ~8k instructions per answer (bench/instructions.sh), a third of the checker's share.
    static func mayHoldSecret(_ raw: [UInt8]) -> Bool {
        raw.withUnsafeBytes { b -> Bool in
            guard let base = b.baseAddress, !b.isEmpty else { return false }
            var at = 0
            while at < b.count - 1, let hit = memchr(base + at, Int32(UInt8(ascii: "\\")), b.count - 1 - at) {
                let i = base.distance(to: UnsafeRawPointer(hit))
                if b[i + 1] == UInt8(ascii: "u") { return true }
                at = i + 2  // the escaped character is not an escape of its own (`\\u` spells `\` then `u`)
            }
            for (word, probe) in secretWords {
                at = probe
                while at < b.count, let hit = memchr(base + at, Int32(word[probe]), b.count - at) {
                    let start = base.distance(to: UnsafeRawPointer(hit)) - probe
                    if start + word.count <= b.count, word.withUnsafeBytes({ memcmp(base + start, $0.baseAddress!, word.count) }) == 0 {
                        return true
                    }
                    at = start + probe + 1
                }
            }
            return false
        }
    }

    private static func digestAndExcerpt(bytes: [UInt8], limit: Int) -> (digest: String, excerpt: String) {
        let digest = Hex.encode(digest(of: bytes), digits: 12)
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

    /// FNV-1a's constants taken eight bytes a step (little-endian words, then the tail bytes),
    /// each step's product folded back onto its low bits so that every byte reaches the 48 bits
    /// shown. Byte-wise FNV-1a was ~2k instructions an answer, half the trace line's cost.
    static func digest(of bytes: [UInt8]) -> UInt64 {
        bytes.withUnsafeBytes { b -> UInt64 in
            let prime: UInt64 = 0x100_0000_01b3
            var h: UInt64 = 0xcbf2_9ce4_8422_2325 ^ UInt64(b.count)
            var i = 0
            while i + 8 <= b.count {
                h = (h ^ UInt64(littleEndian: b.loadUnaligned(fromByteOffset: i, as: UInt64.self))) &* prime
                h ^= h >> 32
                i += 8
            }
            while i < b.count { h = (h ^ UInt64(b[i])) &* prime; i += 1 }
            h ^= h >> 29
            h = h &* 0xbf58_476d_1ce4_e5b9
            return h ^ (h >> 32)
        }
    }

    private static func cut(_ s: String, _ limit: Int) -> String {
        s.count > limit ? String(s.prefix(limit)) + "…" : s
    }
}
