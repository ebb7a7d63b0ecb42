import FleetCore
import Synchronization

/// The stack's notion of "now": wall-clock time plus an offset that tests move forward, so that
/// token and URL expiry, streak days and plan readiness can be tested without waiting.
final class StackClock: Sendable {
    private let offsetMs: Atomic<Int64>

    init(offsetMs: Int64 = 0) { self.offsetMs = Atomic(offsetMs) }

    func nowMs() -> Int64 { WallClock.nowMillis() + offsetMs.load(ordering: .sequentiallyConsistent) }

    /// Moves the clock forward (tests only).
    func advance(ms: Int64) { offsetMs.add(ms, ordering: .sequentiallyConsistent) }
}
