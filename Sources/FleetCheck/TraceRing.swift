import FleetCore
#if canImport(Glibc)
import Glibc
#endif

/// One line of a user's trace (`traces/user-<K>.jsonl`): an exchange or a decision.
///
/// Stored narrow (88 bytes, 112 with an `Int` and three `Double`s): a trace shows whole
/// milliseconds, and a walking user's ring of up to 128 entries was most of its checker's
/// memory. Times are clamped to ±24 days from the run's start (`Int32` milliseconds).
public struct TraceEntry: Sendable {
    private let seq32: Int32
    private let intended32: Int32, actual32: Int32, end32: Int32
    /// The answer's status; -1 for none.
    private let status32: Int32
    public let what: String
    public let path: String
    /// A short digest of the answer and its first characters, with tokens and signed transactions redacted.
    public var answer: AnswerSnippet

    public init(seq: Int, intendedMs: Double, actualMs: Double, endMs: Double, what: String, path: String, status: Int?,
                answer: AnswerSnippet) {
        seq32 = Int32(clamping: seq)
        intended32 = Self.narrow(intendedMs)
        actual32 = Self.narrow(actualMs)
        end32 = Self.narrow(endMs)
        status32 = status.map { Int32(clamping: $0) } ?? -1
        self.what = what
        self.path = path
        self.answer = answer
    }

    private static func narrow(_ ms: Double) -> Int32 {
        ms.isFinite ? Int32(max(Double(Int32.min), min(Double(Int32.max), ms.rounded()))) : 0
    }

    public var seq: Int { Int(seq32) }
    /// Milliseconds from the run's start: when the request was meant to go out, went out, ended.
    public var intendedMs: Double { Double(intended32) }
    public var actualMs: Double { Double(actual32) }
    public var endMs: Double { Double(end32) }
    public var status: Int? { status32 < 0 ? nil : Int(status32) }

    func json() -> String {
        var o: JSONObject = ["seq": .number(Double(seq)), "what": .string(what)]
        if !path.isEmpty {
            o["intended_ms"] = .number(intendedMs.rounded()); o["actual_ms"] = .number(actualMs.rounded())
            o["end_ms"] = .number(endMs.rounded()); o["path"] = .string(path)
            o["status"] = status.map { .number(Double($0)) } ?? .null
            let a = answer.resolved()  // once: resolving a kept answer may parse and serialise it
            o["digest"] = .string(a.digest); o["excerpt"] = .string(a.excerpt)
        }
        return JSONValue.object(o).serialized()
    }
}

/// An answer as a trace line shows it (`digest`, `excerpt`). Most answers are kept as they came
/// (sharing the exchange's array) and read only when a trace is written: searching each for
/// secrets, hashing it and cutting its excerpt was ~1.2k instructions an exchange
/// (bench/instructions.sh), and most rings are dropped unread. A longer answer is not held
/// whole: its hash and excerpt are made at once.
public struct AnswerSnippet: Sendable {
    private enum Form: Sendable {
        case none
        /// A raw answer of at most `headBytes(limit)` bytes, as it came: searched for secrets,
        /// hashed and cut when shown (`resolved()`).
        case kept([UInt8], limit: Int)
        /// An answer's hash and excerpt, from its bytes redacted where they must be.
        case made(hash: UInt64, excerpt: String)
    }
    private let form: Form
    /// False for an exchange whose answer had no body: its line shows no digest.
    private let showsDigest: Bool

    public static let none = AnswerSnippet(.none)

    private init(_ form: Form, showsDigest: Bool = true) { self.form = form; self.showsDigest = showsDigest }

    /// The same answer with no digest shown.
    func withoutDigest() -> AnswerSnippet { AnswerSnippet(form, showsDigest: false) }

    /// A scalar is at most 4 bytes: the first `limit` characters of an answer are in this many
    /// of its bytes, unless long runs of combining marks put several scalars in a character.
    /// Answers up to this long are kept whole (`Redact.snippet(raw:parsed:limit:)`).
    static func headBytes(_ limit: Int) -> Int { 4 * limit + 4 }

    /// A raw answer kept as it came (see `Redact.snippet(raw:parsed:limit:)`).
    static func kept(raw: [UInt8], limit: Int) -> AnswerSnippet { AnswerSnippet(.kept(raw, limit: limit)) }

    /// The hash and excerpt of `bytes`, a whole answer already redacted where it must be.
    static func of(_ bytes: [UInt8], limit: Int) -> AnswerSnippet {
        AnswerSnippet(.made(hash: Redact.digest(of: bytes), excerpt: excerpt(of: bytes, limit: limit)))
    }

    /// Whether the answer is held as it came (not yet resolved), for the tests.
    var isKeptWhole: Bool { if case .kept = form { return true } else { return false } }
    /// Where the answer's bytes (held as they came) or its excerpt are stored, for the tests (an
    /// excerpt of at most 15 bytes is held inline and has no storage of its own to compare).
    var storage: UnsafeRawPointer? {
        switch form {
        case .none: return nil
        case let .kept(b, _): return b.withUnsafeBytes { $0.baseAddress }
        case let .made(_, e): return e.utf8.withContiguousStorageIfAvailable { UnsafeRawPointer($0.baseAddress) } ?? nil
        }
    }

    /// The smaller of the two forms, held once for all users given the same answer
    /// (`SharedAnswers`): an answer kept whole that is longer than the excerpt it shows is
    /// resolved (its hash and excerpt made now, its bytes let go). Resolving costs what laziness
    /// saved (~1.2k instructions, more for an answer holding a token), once an entry. A short
    /// answer stays as it came, shared only when it cannot hold a secret (a token kept in
    /// memory belongs to its user's ring alone).
    func compacted(sharing: SharedAnswers = .shared) -> AnswerSnippet {
        switch form {
        case .none: return self
        case let .kept(b, limit) where b.count <= limit + 16:
            return Redact.mayHoldSecret(b) ? self : AnswerSnippet(.kept(sharing.share(b), limit: limit), showsDigest: showsDigest)
        case .kept:
            return resolved().compacted(sharing: sharing)
        case let .made(hash, excerpt):
            return AnswerSnippet(.made(hash: hash, excerpt: sharing.share(excerpt: excerpt, hash: hash)), showsDigest: showsDigest)
        }
    }

    /// What a kept answer shows: its bytes as they came, or, when they may hold a secret, its
    /// redacted serialisation (parsed again: the same bytes parsed once already).
    func resolved() -> AnswerSnippet {
        guard case let .kept(b, limit) = form else { return self }
        let s = Redact.mayHoldSecret(b) ? Redact.snippet(try? JSONValue.parse(b), limit: limit) : .of(b, limit: limit)
        return showsDigest ? s : s.withoutDigest()
    }

    /// 12 hex digits of the whole answer's hash; empty for none.
    public var digest: String {
        guard showsDigest, case let .made(hash, _) = resolved().form else { return "" }
        return Hex.encode(hash, digits: 12)
    }

    /// The answer's first `limit` characters, and an ellipsis when it had more.
    public var excerpt: String {
        guard case let .made(_, excerpt) = resolved().form else { return "" }
        return excerpt
    }

    /// The first `limit` characters of `bytes`, and an ellipsis when there are more.
    static func excerpt(of bytes: [UInt8], limit: Int) -> String {
        // Serialised JSON is mostly ASCII: when the first `limit + 1` bytes are ASCII (and hold no
        // CR, which joins a following LF into one character), they are `limit + 1` characters,
        // so the cut needs no grapheme walk.
        if Redact.isPlainASCII(bytes, count: Swift.min(bytes.count, limit + 1)) {
            return bytes.count <= limit ? String(decoding: bytes, as: UTF8.self)
                                        : String(decoding: bytes[..<limit], as: UTF8.self) + "…"
        }
        // Only the head is decoded to cut a long answer; runs of combining marks fall back to all.
        let head = headBytes(limit)
        if bytes.count > head, let cut = Redact.cut(String(decoding: bytes[..<head], as: UTF8.self), limit) {
            return cut
        }
        let whole = String(decoding: bytes, as: UTF8.self)
        return Redact.cut(whole, limit) ?? whole
    }
}

/// The last `capacity` entries of one user (a ring: memory stays bounded however long it walks).
struct TraceRing {
    let capacity: Int
    private var items: [TraceEntry] = []
    private var head = 0
    private(set) var count = 0
    /// The newest entries not yet made small by `compact` (a rest compacts only those).
    private var fresh = 0

    init(capacity: Int) { self.capacity = max(1, capacity) }

    mutating func append(_ e: TraceEntry) {
        count += 1
        fresh = Swift.min(fresh + 1, capacity)
        if items.count < capacity {
            // Room for a walk's first entries at once: grown from one by doubling, a quest's ~20
            // entries moved its ring five times (~170 instructions a request).
            if items.capacity == 0 { items.reserveCapacity(Swift.min(capacity, 16)) }
            items.append(e)
            return
        }
        items[head] = e
        head = (head + 1) % capacity
    }

    var entries: [TraceEntry] { Array(items[head...] + items[..<head]) }

    /// The entries, oldest first, in an array of their own size, each answer held in its smaller
    /// form (`AnswerSnippet.compacted`): for a user about to be idle for long. A thinking user's
    /// ring held its first 16 slots reserved (1.8 KiB for its 3 entries) and its answers whole.
    /// Each rest does only what the last one left: storage already of its size is not copied
    /// again, and only the entries appended since have their answers looked at.
    mutating func compact(sharing: SharedAnswers = .shared) {
        let n = items.count
        guard n > 0, fresh > 0 || items.capacity > n else { return }
        if items.capacity > n {
            var kept: [TraceEntry] = []
            kept.reserveCapacity(n)
            for i in 0..<n { kept.append(items[(head + i) % n]) }
            items = kept
            head = 0
        }
        for k in 0..<Swift.min(fresh, n) {  // newest first: the one before `head`, and back
            let i = (head + n - 1 - k) % n
            items[i].answer = items[i].answer.compacted(sharing: sharing)
        }
        fresh = 0
    }

    mutating func release() { items = []; head = 0; fresh = 0 }

    /// Entries the ring's storage has room for (what it holds in memory, for the tests).
    var reserved: Int { items.capacity }
}

/// Tokens, refresh tokens, push tokens and signed transactions never reach a trace.
enum Redact {
    static let secretKeys: Set<String> = ["access_token", "refresh_token", "signed_transaction", "token"]

    /// A trace line's answer: its digest (of the whole redacted answer, 12 hex digits) and its
    /// excerpt (the first `limit` characters), from one redacting serialisation into bytes. The
    /// digest tells answers apart at a glance; it protects nothing, so it is a 64-bit
    /// multiply-xor hash (48 bits shown, `digest(of:)`), not SHA-256, which cost 2 % of the
    /// bench's CPU when it was taken of every answer.
    static func snippet(_ v: JSONValue?, limit: Int) -> AnswerSnippet {
        guard let v else { return .none }
        return .of(v.serializedBytes(redacting: secretKeys, as: "<redacted>"), limit: limit)
    }

    /// The same for an answer as it came (`raw`) and as parsed: taken of the raw bytes when no
    /// secret key can be in them, else of the redacted serialisation. Most answers hold no token,
    /// and serialising every parsed answer again was most of the checker's instructions per
    /// exchange (bench/instructions.sh). An answer that is not JSON (`parsed` nil) gets none, as before.
    /// An answer of at most `AnswerSnippet.headBytes(limit)` bytes (most) is kept as it came and searched for
    /// secrets only when a trace shows it (`AnswerSnippet.resolved()`). The kept bytes may hold a
    /// token in memory, as the exchange did, until the ring lets go of them; what is written is
    /// redacted all the same.
    static func snippet(raw: [UInt8], parsed: JSONValue?, limit: Int) -> AnswerSnippet {
        guard parsed != nil else { return .none }
        if !raw.isEmpty && raw.count <= AnswerSnippet.headBytes(limit) { return .kept(raw: raw, limit: limit) }
        if !raw.isEmpty && !mayHoldSecret(raw) { return .of(raw, limit: limit) }
        return snippet(parsed, limit: limit)
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

    /// Whether the first `count` bytes are ASCII and hold no CR: CR by memchr, the high bits
    /// OR-ed eight bytes a step (a byte loop, over an ArraySlice or the buffer, cost more than
    /// the digest).
    static func isPlainASCII(_ bytes: [UInt8], count: Int) -> Bool {
        bytes.withUnsafeBytes { b -> Bool in
            guard let base = b.baseAddress, count > 0 else { return true }
            if memchr(base, 0x0d, count) != nil { return false }
            var bits: UInt64 = 0, i = 0
            while i + 8 <= count { bits |= b.loadUnaligned(fromByteOffset: i, as: UInt64.self); i += 8 }
            while i < count { bits |= UInt64(b[i]); i += 1 }
            return bits & 0x8080_8080_8080_8080 == 0
        }
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

    /// The first `limit` characters and an ellipsis; nil when `s` has no more than `limit`.
    /// Walks `limit` characters once: counting the whole head (four times as many bytes) and
    /// then walking its prefix again was ~29k instructions an excerpt with a non-ASCII start.
    static func cut(_ s: String, _ limit: Int) -> String? {
        guard let end = s.index(s.startIndex, offsetBy: limit, limitedBy: s.endIndex), end < s.endIndex else { return nil }
        return String(s[..<end]) + "…"
    }
}
