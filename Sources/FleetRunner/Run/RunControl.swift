import FleetCore

/// The run's stop switch and its registry of live user tasks.
///
/// Stopping happens in two steps, as a load tester's user expects: first no new arrivals (users
/// in flight finish within the grace period), then every user task is cancelled, which drops its
/// in-flight transfers and wakes it from any pause. Measurements already taken are kept.
public final class RunControl: @unchecked Sendable {
    private let lock = Lock()
    private var tasks: [Int: Task<Void, Never>] = [:]
    private var nextId = 0
    private var stoppedArrivals = false
    private var deadline: UInt64 = .max
    private var active = 0
    private var stopHandlers: [@Sendable () -> Void] = []

    public init() {}

    public var arrivalsStopped: Bool { lock.withLock { stoppedArrivals } }
    public var arrivalsDeadline: UInt64 { lock.withLock { deadline } }
    public var activeUsers: Int { lock.withLock { active } }
    public var liveTasks: Int { lock.withLock { tasks.count } }

    /// No user starts at or after `instant` (the profile's duration cap).
    public func setArrivalsDeadline(_ instant: UInt64) { lock.withLock { deadline = instant } }

    /// Stops arrivals now; users already walking go on.
    public func stopArrivals() {
        for h in markStopped() { h() }
    }

    /// Calls `handler` once when arrivals stop (at once if they already have). The fleet uses it
    /// to wake its drivers from long sleeps (a slot waiting for its turn in a ramp), so that a
    /// stop ends the schedule now rather than when its next instant comes.
    public func whenArrivalsStop(_ handler: @escaping @Sendable () -> Void) {
        let now = lock.withLock { () -> Bool in
            if stoppedArrivals { return true }
            stopHandlers.append(handler)
            return false
        }
        if now { handler() }
    }

    /// Sets the stopped flag and hands back the handlers to call (outside the lock).
    private func markStopped() -> [@Sendable () -> Void] {
        lock.withLock {
            stoppedArrivals = true
            defer { stopHandlers = [] }
            return stopHandlers
        }
    }

    /// Cancels every live user (their journeys end as interrupted).
    public func cancelAll() {
        for h in markStopped() { h() }
        let all = lock.withLock { Array(tasks.values) }
        for t in all { t.cancel() }
    }

    /// Starts a user task and keeps it cancellable until it ends; the task removes itself, so
    /// the registry costs one dictionary entry per live user and no extra task.
    @discardableResult
    func spawn(_ body: @escaping @Sendable () async -> Void) -> Task<Void, Never> {
        // Counted as active from the moment it is spawned, so a capacity check right after a
        // launch already sees it.
        lock.withLock {
            nextId += 1
            active += 1
            let id = nextId
            let task = Task {
                await body()
                self.lock.withLock {
                    _ = self.tasks.removeValue(forKey: id)
                    self.active -= 1
                }
            }
            tasks[id] = task
            return task
        }
    }

    /// Waits until no user task is alive, or until `instant`; true when all ended.
    public func drain(until instant: UInt64) async -> Bool {
        while liveTasks > 0 {
            if MonotonicClock.now() >= instant { return false }
            await Pause.sleep(seconds: 0.05)
        }
        return true
    }
}
