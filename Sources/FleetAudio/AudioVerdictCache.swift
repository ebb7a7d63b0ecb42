import Dispatch
import FleetCore
import Synchronization

/// Verdicts remembered by content digest, for a stack that hears the same corpus clip many times.
///
/// Assessing decodes the whole clip: an Opus reading of 40 s costs about 100 ms of CPU, so a
/// reference stack on two cores could assess only a few dozen uploads a second and would measure
/// its own decoder instead of the queueing the bench is after. Fleet users upload corpus clips,
/// so the same bytes come back again and again; the verdict is a pure function of (bytes,
/// declared type), and this cache returns it without decoding again. The caller passes the sha256
/// it has already verified for these bytes (the stack checks it at submit). Bounded: the oldest
/// entry goes first once `capacity` is reached. Thread-safe.
///
/// A key being computed is computed once: callers that miss it meanwhile wait for that verdict
/// instead of decoding the same bytes again. When a crowd of virtual users starts uploading, many
/// uploads of one clip arrive within the ~0.1–0.2 s its first decode takes, and each decoding it
/// again took both cores of a machine the stack shares with the bench (bench/RESULTS.md, item 6).
public final class AudioVerdictCache: Sendable {
    private struct State {
        var entries: [String: AudioVerdict] = [:]
        var order: [String?]
        var next = 0
        var hitCount = 0
        var missCount = 0
        /// Keys being decoded, each with the one decode its waiters wait for.
        var computing: [String: Decode] = [:]
    }
    private let state: Mutex<State>

    public init(capacity: Int = 4096) {
        state = Mutex(State(order: Array(repeating: nil, count: max(1, capacity))))
    }

    /// One decode in flight: its caller sets `verdict` and then leaves `done`; waiters read
    /// `verdict` after `done`, so they need neither the cache (which may have evicted it by then)
    /// nor its lock.
    private final class Decode: @unchecked Sendable {
        // @unchecked: `verdict` is written once, before `done.leave()`, and read only after `done.wait()`.
        let done = DispatchGroup()
        var verdict: AudioVerdict?
        init() { done.enter() }
    }

    private enum Lookup { case found(AudioVerdict), wait(Decode), decode(Decode) }

    /// The verdict for bytes whose verified digest is `sha256`, computing it on a miss (or waiting
    /// for the caller already computing it). Hits count verdicts not decoded by this call, waits
    /// included; misses count decodes.
    public func verdict(sha256: String, declaredContentType: String,
                        bytes: UnsafeRawBufferPointer) -> AudioVerdict {
        let key = sha256.lowercased() + " " + declaredContentType
        let lookup = state.withLock { s -> Lookup in
            if let v = s.entries[key] { s.hitCount += 1; return .found(v) }
            if let d = s.computing[key] { s.hitCount += 1; return .wait(d) }
            s.missCount += 1
            let d = Decode()
            s.computing[key] = d
            return .decode(d)
        }
        let decode: Decode
        switch lookup {
        case let .found(v):
            return v
        case let .wait(d):
            d.done.wait()
            guard let v = d.verdict else { preconditionFailure("AudioVerdictCache: a decode ended without its verdict") }
            return v
        case let .decode(d):
            decode = d
        }
        let verdict = AudioAnalysis.assess(bytes: bytes, declaredContentType: declaredContentType)
        decode.verdict = verdict
        state.withLock { s in
            s.computing[key] = nil
            if let old = s.order[s.next] { s.entries[old] = nil }
            s.order[s.next] = key
            s.next = (s.next + 1) % s.order.count
            s.entries[key] = verdict
        }
        decode.done.leave()
        return verdict
    }

    public func verdict(sha256: String, declaredContentType: String, bytes: [UInt8]) -> AudioVerdict {
        bytes.withUnsafeBytes { verdict(sha256: sha256, declaredContentType: declaredContentType, bytes: $0) }
    }

    /// (hits, misses) so far, for the stack's metrics.
    public var counts: (hits: Int, misses: Int) { state.withLock { ($0.hitCount, $0.missCount) } }
    public var count: Int { state.withLock { $0.entries.count } }
}
