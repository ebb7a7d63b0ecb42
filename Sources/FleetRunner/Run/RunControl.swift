import Dispatch
import FleetCore
import FleetHTTP
import Synchronization

/// The run's stop switch and its registry of live user tasks.
///
/// Stopping happens in two steps, as a load tester's user expects: first no new arrivals (users
/// in flight finish within the grace period), then every user task is cancelled, which drops its
/// in-flight transfers and wakes it from any pause. Measurements already taken are kept.
public final class RunControl: Sendable {
    private struct State {
        var tasks: [Int: Task<Void, Never>] = [:]
        var nextId = 0
        var stoppedArrivals = false
        var deadline: UInt64 = .max
        var active = 0
        var stopHandlers: [@Sendable () -> Void] = []
        /// `drain` calls waiting for the last user, each resumed once: by the last user's end or its timer.
        var drainers: [Int: Drainer] = [:]
        var nextDrainer = 0
        /// Slot tasks (closed models) asleep until their next user's turn. No user walks in them,
        /// so a stop of arrivals cancels them, which ends their sleep and with it the slot.
        var waitingSlots: Set<Int> = []
        /// Where user and slot tasks run (`HTTPEngine.userExecutors`), dealt round-robin; empty
        /// = Swift's global executor.
        var executors: [any TaskExecutor] = []
    }

    private struct Drainer {
        let continuation: CheckedContinuation<Bool, Never>
        let timer: DispatchWorkItem?
    }

    private let state = Mutex(State())
    private static let timerQueue = DispatchQueue(label: "fleet.drain-timers")

    public init() {}

    public var arrivalsStopped: Bool { state.withLock { $0.stoppedArrivals } }
    public var arrivalsDeadline: UInt64 { state.withLock { $0.deadline } }
    public var activeUsers: Int { state.withLock { $0.active } }
    public var liveTasks: Int { state.withLock { $0.tasks.count } }
    /// `drain` calls waiting now (tests wait for one to be waiting before they end the last user).
    var waitingDrains: Int { state.withLock { $0.drainers.count } }

    /// User and slot tasks spawned from now on prefer `engine`'s I/O loops, dealt round-robin,
    /// unless `FLEET_USERS_ON=pool` (`EngineLevers.usersOnLoops`) leaves them on Swift's global executor.
    public func runUsers(on engine: HTTPEngine) {
        guard EngineLevers.current.usersOnLoops else { return }
        let executors = engine.userExecutors
        state.withLock { $0.executors = executors }
    }

    /// The executors users run on (empty: Swift's global executor).
    public var userExecutors: [any TaskExecutor] { state.withLock { $0.executors } }

    /// No user starts at or after `instant` (the profile's duration cap).
    public func setArrivalsDeadline(_ instant: UInt64) { state.withLock { $0.deadline = instant } }

    /// Stops arrivals now; users already walking go on.
    public func stopArrivals() {
        for h in markStopped() { h() }
    }

    /// Calls `handler` once when arrivals stop (at once if they already have). The fleet uses it
    /// to wake its drivers from long sleeps (a slot waiting for its turn in a ramp), so that a
    /// stop ends the schedule now rather than when its next instant comes.
    public func whenArrivalsStop(_ handler: @escaping @Sendable () -> Void) {
        let now = state.withLock { s -> Bool in
            if s.stoppedArrivals { return true }
            s.stopHandlers.append(handler)
            return false
        }
        if now { handler() }
    }

    /// Sets the stopped flag and hands back the handlers to call (outside the lock), the
    /// cancelling of every slot asleep until its turn among them.
    private func markStopped() -> [@Sendable () -> Void] {
        state.withLock { s in
            s.stoppedArrivals = true
            let asleep = s.waitingSlots.compactMap { s.tasks[$0] }
            defer { s.stopHandlers = [] }
            return s.stopHandlers + [{ for t in asleep { t.cancel() } }]
        }
    }

    /// Cancels every live user (their journeys end as interrupted).
    public func cancelAll() {
        for h in markStopped() { h() }
        let all = state.withLock { Array($0.tasks.values) }
        for t in all { t.cancel() }
    }

    /// Starts a user task and keeps it cancellable until it ends; the task removes itself, so
    /// the registry costs one dictionary entry per live user and no extra task.
    @discardableResult
    func spawn(_ body: @escaping @Sendable () async -> Void) -> Task<Void, Never> {
        register(user: true) { _ in await body() }
    }

    /// Closed models: starts a slot's task, which walks the slot's users one after another
    /// (`userBegins`/`userEnds` count each as active). One task per slot: a slot task awaiting
    /// a task per user held two tasks for every user, about 1.3 KB more each. `body` gets the
    /// slot's id for `slotSleep`.
    @discardableResult
    func spawnSlot(_ body: @escaping @Sendable (_ id: Int) async -> Void) -> Task<Void, Never> {
        register(user: false, body)
    }

    /// Makes room in the task registry for `count` more tasks at once: grown one insertion at a
    /// time, a registry of 200,000 entries re-hashed every entry under the lock that every user
    /// takes to begin, end or sleep, each time it doubled.
    func reserveTasks(_ count: Int) {
        state.withLock { $0.tasks.reserveCapacity($0.tasks.count + count) }
    }

    /// A slot's user starts or ends walking (its task lives on between users).
    func userBegins() { state.withLock { $0.active += 1 } }
    func userEnds() { state.withLock { $0.active -= 1 } }

    /// Slot `id` sleeps until `instant`, or until arrivals stop (at once if they have). It is
    /// registered while asleep so that a stop cancels the slot's task, which is safe: no user
    /// walks in it now, and once awake it reads the stop (`ArrivalDriver.waitUntil`) and starts none.
    func slotSleep(id: Int, until instant: UInt64) async {
        let asleep = state.withLock { s -> Bool in
            if s.stoppedArrivals { return false }
            s.waitingSlots.insert(id)
            return true
        }
        guard asleep else { return }
        _ = await Pause.until(instant)
        state.withLock { _ = $0.waitingSlots.remove(id) }
    }

    /// Every registered task: counted as active from the moment it is spawned when it is a
    /// user's, so a capacity check right after a launch already sees it. The task is created
    /// under the lock so that it cannot end (and remove its entry) before the entry exists.
    private func register(user: Bool, _ body: @escaping @Sendable (Int) async -> Void) -> Task<Void, Never> {
        state.withLock { s in
            s.nextId += 1
            if user { s.active += 1 }
            let id = s.nextId
            let executor = s.executors.isEmpty ? nil : s.executors[id % s.executors.count]
            let task = Task(executorPreference: executor) {
                await body(id)
                self.ended(id, user: user)
            }
            s.tasks[id] = task
            return task
        }
    }

    /// A task ended: the last one out wakes every `drain` waiting for it.
    private func ended(_ id: Int, user: Bool) {
        let woken = state.withLock { s -> [Drainer] in
            _ = s.tasks.removeValue(forKey: id)
            if user { s.active -= 1 }
            guard s.tasks.isEmpty, !s.drainers.isEmpty else { return [] }
            defer { s.drainers = [:] }
            return Array(s.drainers.values)
        }
        for d in woken {
            d.timer?.cancel()
            d.continuation.resume(returning: true)
        }
    }

    /// The drain `id` timed out, unless the last user's end already resumed it.
    private func timedOut(_ id: Int) {
        state.withLock { $0.drainers.removeValue(forKey: id) }?.continuation.resume(returning: false)
    }

    /// Waits until no user task is alive, or until `instant`; true when all ended.
    ///
    /// Woken by the last user's end (no polling), or by a timer at `instant`. Cancelling the
    /// caller does not end the wait early: the answer is about the users, not about the caller.
    public func drain(until instant: UInt64) async -> Bool {
        await withCheckedContinuation { (c: CheckedContinuation<Bool, Never>) in
            let now = MonotonicClock.now()
            let registered = state.withLock { s -> (id: Int, timer: DispatchWorkItem?)? in
                if s.tasks.isEmpty { return nil }
                let id = s.nextDrainer
                s.nextDrainer += 1
                // No timer for an instant too far to matter (a wait bounded by users only).
                let timer = instant > now && instant - now < 365 * 86_400 * 1_000_000_000
                    ? DispatchWorkItem { [weak self] in self?.timedOut(id) } : nil
                s.drainers[id] = Drainer(continuation: c, timer: timer)
                return (id, timer)
            }
            guard let registered else { return c.resume(returning: true) }
            if instant <= now { return timedOut(registered.id) }
            if let timer = registered.timer {
                Self.timerQueue.asyncAfter(deadline: .now() + .nanoseconds(Int(instant - now)), execute: timer)
            }
        }
    }
}
