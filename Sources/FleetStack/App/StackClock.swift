import FleetCore

/// The stack's notion of "now": wall-clock time plus an offset that tests move forward, so that
/// token and URL expiry, streak days and plan readiness can be tested without waiting.
final class StackClock: @unchecked Sendable {
    // @unchecked: `offsetMs` is only touched under `lock`.
    private let lock = Lock()
    private var offsetMs: Int64 = 0

    init(offsetMs: Int64 = 0) { self.offsetMs = offsetMs }

    func nowMs() -> Int64 { WallClock.nowMillis() + lock.withLock { offsetMs } }

    /// Moves the clock forward (tests only).
    func advance(ms: Int64) { lock.withLock { offsetMs += ms } }
}
