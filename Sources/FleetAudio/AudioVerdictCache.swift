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
public final class AudioVerdictCache: Sendable {
    private struct State {
        var entries: [String: AudioVerdict] = [:]
        var order: [String?]
        var next = 0
        var hitCount = 0
        var missCount = 0
    }
    private let state: Mutex<State>

    public init(capacity: Int = 4096) {
        state = Mutex(State(order: Array(repeating: nil, count: max(1, capacity))))
    }

    /// The verdict for bytes whose verified digest is `sha256`, computing it on a miss.
    public func verdict(sha256: String, declaredContentType: String,
                        bytes: UnsafeRawBufferPointer) -> AudioVerdict {
        let key = sha256.lowercased() + " " + declaredContentType
        if let found = state.withLock({ s -> AudioVerdict? in
            let v = s.entries[key]
            if v != nil { s.hitCount += 1 } else { s.missCount += 1 }
            return v
        }) {
            return found
        }
        // Computed outside the lock: two threads missing the same key both decode, and agree.
        let verdict = AudioAnalysis.assess(bytes: bytes, declaredContentType: declaredContentType)
        state.withLock { s in
            guard s.entries[key] == nil else { return }
            if let old = s.order[s.next] { s.entries[old] = nil }
            s.order[s.next] = key
            s.next = (s.next + 1) % s.order.count
            s.entries[key] = verdict
        }
        return verdict
    }

    public func verdict(sha256: String, declaredContentType: String, bytes: [UInt8]) -> AudioVerdict {
        bytes.withUnsafeBytes { verdict(sha256: sha256, declaredContentType: declaredContentType, bytes: $0) }
    }

    /// (hits, misses) so far, for the stack's metrics.
    public var counts: (hits: Int, misses: Int) { state.withLock { ($0.hitCount, $0.missCount) } }
    public var count: Int { state.withLock { $0.entries.count } }
}
