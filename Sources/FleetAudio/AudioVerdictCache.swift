import FleetCore

/// Verdicts remembered by content digest, for a stack that hears the same corpus clip many times.
///
/// Assessing decodes the whole clip: an Opus reading of 40 s costs about 100 ms of CPU, so a
/// reference stack on two cores could assess only a few dozen uploads a second and would measure
/// its own decoder instead of the queueing the bench is after. Fleet users upload corpus clips,
/// so the same bytes come back again and again; the verdict is a pure function of (bytes,
/// declared type), and this cache returns it without decoding again. The caller passes the sha256
/// it has already verified for these bytes (the stack checks it at submit). Bounded: the oldest
/// entry goes first once `capacity` is reached. Thread-safe.
public final class AudioVerdictCache: @unchecked Sendable {
    // @unchecked: `entries`, `order`, `next`, `hits` and `misses` are only touched under `lock`.
    private let lock = Lock()
    private var entries: [String: AudioVerdict] = [:]
    private var order: [String?]
    private var next = 0
    private var hitCount = 0
    private var missCount = 0

    public init(capacity: Int = 4096) {
        order = Array(repeating: nil, count: max(1, capacity))
    }

    /// The verdict for bytes whose verified digest is `sha256`, computing it on a miss.
    public func verdict(sha256: String, declaredContentType: String,
                        bytes: UnsafeRawBufferPointer) -> AudioVerdict {
        let key = sha256.lowercased() + " " + declaredContentType
        if let found = lock.withLock({ () -> AudioVerdict? in
            let v = entries[key]
            if v != nil { hitCount += 1 } else { missCount += 1 }
            return v
        }) {
            return found
        }
        // Computed outside the lock: two threads missing the same key both decode, and agree.
        let verdict = AudioAnalysis.assess(bytes: bytes, declaredContentType: declaredContentType)
        lock.withLock {
            guard entries[key] == nil else { return }
            if let old = order[next] { entries[old] = nil }
            order[next] = key
            next = (next + 1) % order.count
            entries[key] = verdict
        }
        return verdict
    }

    public func verdict(sha256: String, declaredContentType: String, bytes: [UInt8]) -> AudioVerdict {
        bytes.withUnsafeBytes { verdict(sha256: sha256, declaredContentType: declaredContentType, bytes: $0) }
    }

    /// (hits, misses) so far, for the stack's metrics.
    public var counts: (hits: Int, misses: Int) { lock.withLock { (hitCount, missCount) } }
    public var count: Int { lock.withLock { entries.count } }
}
