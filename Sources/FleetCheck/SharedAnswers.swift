import Synchronization

/// Answers many users are given alike (the config, a new user's home, the catalog's lists),
/// held once. A ring compacted for a rest (`TraceRing.compact`) looks each of its answers up
/// here and keeps a reference to an equal one seen before instead of its own copy: 200,000
/// thinking users held the same 246-byte config answer 200,000 times.
///
/// Direct-mapped by the answer's hash, `slotCount` slots a table: bounded (at most one answer a
/// slot: raw answers of at most 256 bytes, excerpts of 240 characters; ~5 MB), and an answer
/// unlike the slot's takes its place, so a run of unique answers costs a lookup each and keeps
/// nothing alive but the last of each slot. Raw answers that may hold a secret are never shared
/// (see `AnswerSnippet.compacted`).
final class SharedAnswers: Sendable {
    static let shared = SharedAnswers()
    static let slotCount = 4096

    private let raw = Mutex<[[UInt8]]>(Array(repeating: [], count: SharedAnswers.slotCount))
    private let excerpts = Mutex<[(hash: UInt64, text: String)]>(Array(repeating: (0, ""), count: SharedAnswers.slotCount))

    /// `bytes`, or equal bytes held already (one storage for both).
    func share(_ bytes: [UInt8]) -> [UInt8] {
        let i = Self.slot(Redact.digest(of: bytes))
        return raw.withLock { s in
            if s[i] == bytes { return s[i] }
            s[i] = bytes
            return bytes
        }
    }

    /// `text`, the excerpt of an answer whose hash is `hash`, or an equal excerpt held already.
    func share(excerpt text: String, hash: UInt64) -> String {
        let i = Self.slot(hash)
        return excerpts.withLock { s in
            if s[i].hash == hash && s[i].text == text { return s[i].text }
            s[i] = (hash, text)
            return text
        }
    }

    private static func slot(_ hash: UInt64) -> Int { Int(truncatingIfNeeded: (hash ^ (hash >> 29)) % UInt64(slotCount)) }
}
