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
        /// Keys being computed, each with the group its waiters wait on (left when it is stored).
        var computing: [String: DispatchGroup] = [:]
    }
    private let state: Mutex<State>

    public init(capacity: Int = 4096) {
        state = Mutex(State(order: Array(repeating: nil, count: max(1, capacity))))
    }

    private enum Lookup { case found(AudioVerdict), wait(DispatchGroup), compute(DispatchGroup) }

    /// The verdict for bytes whose verified digest is `sha256`, computing it on a miss (or waiting
    /// for the caller already computing it). Hits count verdicts not decoded by this call, waits
    /// included; misses count decodes.
    public func verdict(sha256: String, declaredContentType: String,
                        bytes: UnsafeRawBufferPointer) -> AudioVerdict {
        let key = sha256.lowercased() + " " + declaredContentType
        while true {
            let lookup = state.withLock { s -> Lookup in
                if let v = s.entries[key] { s.hitCount += 1; return .found(v) }
                if let g = s.computing[key] { s.hitCount += 1; return .wait(g) }
                s.missCount += 1
                let g = DispatchGroup()
                g.enter()
                s.computing[key] = g
                return .compute(g)
            }
            switch lookup {
            case let .found(v):
                return v
            case let .wait(g):
                g.wait()
                // Stored by the computing caller; gone only if evicted since (a full cache turned
                // over meanwhile): then look again, and compute it if no one else is.
                if let v = state.withLock({ $0.entries[key] }) { return v }
                state.withLock { $0.hitCount -= 1 }
            case let .compute(g):
                let verdict = AudioAnalysis.assess(bytes: bytes, declaredContentType: declaredContentType)
                state.withLock { s in
                    s.computing[key] = nil
                    if let old = s.order[s.next] { s.entries[old] = nil }
                    s.order[s.next] = key
                    s.next = (s.next + 1) % s.order.count
                    s.entries[key] = verdict
                }
                g.leave()
                return verdict
            }
        }
    }

    public func verdict(sha256: String, declaredContentType: String, bytes: [UInt8]) -> AudioVerdict {
        bytes.withUnsafeBytes { verdict(sha256: sha256, declaredContentType: declaredContentType, bytes: $0) }
    }

    /// (hits, misses) so far, for the stack's metrics.
    public var counts: (hits: Int, misses: Int) { state.withLock { ($0.hitCount, $0.missCount) } }
    public var count: Int { state.withLock { $0.entries.count } }
}
