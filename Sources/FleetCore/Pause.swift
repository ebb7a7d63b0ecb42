import Dispatch
#if canImport(Glibc)
import Glibc
#endif

/// Suspends a virtual user until a monotonic instant, on a Dispatch timer.
///
/// Users never own a thread: a think time or a poll interval is a Dispatch timer that resumes the
/// user's task. Waking at an absolute instant (not "after N ms") is what lets the bench compare a
/// request's intended start with its actual start.
public enum Pause {
    private static let timerQueue = DispatchQueue(label: "fleet.timers", qos: .userInitiated, attributes: .concurrent)

    /// Returns at or after `deadline` (MonotonicClock nanoseconds), or early, returning false, when
    /// the task is cancelled (the app was killed or the run is stopping).
    @discardableResult
    public static func until(_ deadline: UInt64) async -> Bool {
        if Task.isCancelled { return false }
        let now = MonotonicClock.now()
        if deadline <= now { return true }
        let once = ResumeOnce()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (c: CheckedContinuation<Bool, Never>) in
                once.arm(c)
                timerQueue.asyncAfter(deadline: .now() + .nanoseconds(Int(deadline - now))) { once.resume(true) }
            }
        } onCancel: {
            once.resume(false)
        }
    }

    /// Suspends for `seconds` from now.
    @discardableResult
    public static func sleep(seconds: Double) async -> Bool {
        await until(MonotonicClock.now() &+ UInt64(max(0, seconds) * 1e9))
    }
}

/// Resumes a continuation exactly once, whichever of timer and cancellation comes first.
final class ResumeOnce: @unchecked Sendable {
    private var lock = pthread_mutex_t()
    private var continuation: CheckedContinuation<Bool, Never>?
    private var early: Bool?

    init() { pthread_mutex_init(&lock, nil) }
    deinit { pthread_mutex_destroy(&lock) }

    func arm(_ c: CheckedContinuation<Bool, Never>) {
        pthread_mutex_lock(&lock)
        if let v = early { pthread_mutex_unlock(&lock); c.resume(returning: v); return }
        continuation = c
        pthread_mutex_unlock(&lock)
    }

    func resume(_ value: Bool) {
        pthread_mutex_lock(&lock)
        guard let c = continuation else {
            if early == nil { early = value }
            pthread_mutex_unlock(&lock)
            return
        }
        continuation = nil
        early = value
        pthread_mutex_unlock(&lock)
        c.resume(returning: value)
    }
}
