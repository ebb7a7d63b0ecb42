import Dispatch
import Synchronization

/// Suspends a virtual user until a monotonic instant, on a timer.
///
/// Users never own a thread: a think time or a poll interval is a timer that resumes the user's
/// task, on the I/O loop that runs the user (`LoopThread`) or on Dispatch. Waking at an absolute
/// instant (not "after N ms") is what lets the bench compare a request's intended start with its
/// actual start.
public enum Pause {
    private static let timerQueue = DispatchQueue(label: "fleet.timers", qos: .userInitiated, attributes: .concurrent)
    private static let observer = Mutex<(@Sendable () -> Void)?>(nil)
    private static let observed = Atomic<Bool>(false)

    /// Calls `hook` in the pausing task at every `until`, from now on. Only the request recorder
    /// (`FLEET_HTTP_RECORD`) asks: a gap between a user's answer and its next request with a pause
    /// in it is a wait, one without is the user's own work, which a replay should not sleep through.
    public static func observe(_ hook: @escaping @Sendable () -> Void) {
        observer.withLock { $0 = hook }
        observed.store(true, ordering: .releasing)
    }

    /// Returns at or after `deadline` (MonotonicClock nanoseconds), or early, returning false, when
    /// the task is cancelled (the app was killed or the run is stopping).
    @discardableResult
    public static func until(_ deadline: UInt64) async -> Bool {
        if Task.isCancelled { return false }
        let now = MonotonicClock.now()
        if deadline <= now { return true }
        if observed.load(ordering: .relaxed), let hook = observer.withLock({ $0 }) { hook() }  // a real pause only
        let once = ResumeOnce()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (c: CheckedContinuation<Bool, Never>) in
                once.arm(c)
                at(deadline) { once.resume(true) }
            }
        } onCancel: {
            once.resume(false)
        }
    }

    /// Calls `fire` at or after `deadline`: on a loop thread (a user running on the HTTP engine's
    /// I/O thread) from that loop's own timers, on its thread; elsewhere from a Dispatch timer.
    public static func at(_ deadline: UInt64, _ fire: @escaping @Sendable () -> Void) {
        if let loop = LoopThread.current { return loop.schedule(at: deadline, fire) }
        let now = MonotonicClock.now()
        timerQueue.asyncAfter(deadline: .now() + .nanoseconds(Int(deadline > now ? deadline - now : 0)), execute: fire)
    }

    /// Suspends for `seconds` from now.
    @discardableResult
    public static func sleep(seconds: Double) async -> Bool {
        await until(MonotonicClock.now() &+ UInt64(max(0, seconds) * 1e9))
    }
}

/// Resumes a continuation exactly once, whichever of timer and cancellation comes first.
///
/// Either side may come first: cancellation can fire before `arm` (the handler runs at once when
/// the task is already cancelled), in which case the value waits in `early` for `arm` to use it.
final class ResumeOnce: Sendable {
    private struct State {
        var continuation: CheckedContinuation<Bool, Never>?
        var early: Bool?
    }
    private let state = Mutex(State())

    func arm(_ c: CheckedContinuation<Bool, Never>) {
        let early = state.withLock { s -> Bool? in
            if let v = s.early { return v }
            s.continuation = c
            return nil
        }
        if let early { c.resume(returning: early) }
    }

    func resume(_ value: Bool) {
        // Taken out under the lock, resumed outside it: the resumed task may run on this thread.
        let c = state.withLock { s -> CheckedContinuation<Bool, Never>? in
            guard let c = s.continuation else {
                if s.early == nil { s.early = value }
                return nil
            }
            s.continuation = nil
            s.early = value
            return c
        }
        c?.resume(returning: value)
    }
}
