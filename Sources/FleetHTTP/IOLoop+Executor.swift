import Dispatch
import FleetCore
import Synchronization

/// The I/O loop as the executor of virtual users' tasks (`HTTPEngine.userExecutors`), the way an
/// event-loop server runs its handlers: a user's task, its requests, their completions and its
/// timers all stay on one thread. Before, every response crossed three threads (I/O thread →
/// completion queue → Swift's cooperative pool) and every think time a fourth (Dispatch's timer
/// thread), each crossing a futex wake-up and a context switch; at a human pace those wake-ups,
/// not the requests, were most of the bench's CPU.
///
/// Jobs enqueued from the loop's own thread (a continuation resumed by a completion or a timer of
/// this loop) go to a thread-confined list; from any other thread to the locked pending list,
/// waking the loop if it sleeps. Once the loop has stopped, jobs and timers move to Dispatch, so
/// a task still alive then (cancelled, unwinding) finishes elsewhere instead of hanging.
extension IOLoop: TaskExecutor, LoopTimers {
    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        if isLoopThread {
            localJobs.append(job)
            return
        }
        let accepted = pending.withLock { p -> Bool in
            if p.closed { return false }
            p.jobs.append(job)
            return true
        }
        if accepted { wakeIfSleeping() } else { Self.runElsewhere(job) }
    }

    /// `Pause` on this loop's thread: the timer fires on this thread (`fireDueTimers`).
    func schedule(at deadline: UInt64, _ fire: @escaping @Sendable () -> Void) {
        timers.push(deadline, fire)
    }

    /// True on the loop's own thread.
    var isLoopThread: Bool { LoopThread.current === self }

    /// Runs the jobs queued so far (not those they queue in turn: the loop polls its sockets
    /// between batches, so a task that never waits on I/O cannot starve the others' answers).
    func runJobs() {
        guard !localJobs.isEmpty else { return }
        swap(&localJobs, &jobBatch)
        let me = asUnownedTaskExecutor()
        for job in jobBatch { job.runSynchronously(on: me) }
        jobBatch.removeAll(keepingCapacity: true)
    }

    /// Fires the loop's timers that are due; the tasks they resume queue jobs on this loop.
    func fireDueTimers(now: UInt64) {
        while let t = timers.popDue(now: now) { t.fire() }
    }

    /// The loop has stopped: jobs still queued, and those enqueued later, run on Swift's global
    /// executor; timers still set fire from Dispatch at their deadlines.
    func handOffAfterStop() {
        let remote = pending.withLock { p -> [UnownedJob] in
            p.closed = true
            defer { p.jobs = [] }
            return p.jobs
        }
        for job in localJobs + remote { Self.runElsewhere(job) }
        localJobs.removeAll()
        var left = TimerHeap()
        swap(&left, &timers)
        if !left.isEmpty { OrphanTimers(left).arm() }
    }

    private static func runElsewhere(_ job: UnownedJob) {
        globalConcurrentExecutor.enqueue(ExecutorJob(job))
    }
}

/// The timers of a stopped loop, fired from Dispatch at their deadlines by one timer re-armed
/// for the earliest: a run's end can leave 200,000 users' think timers behind, most of them for
/// users already cancelled, and one Dispatch timer each would be 200,000 timer sources at exit.
/// (Not `Pause.at`: the stopping thread is still marked as the loop's.)
private final class OrphanTimers: Sendable {
    private let heap: Mutex<TimerHeap>

    init(_ heap: TimerHeap) { self.heap = Mutex(heap) }

    func arm() {
        let next = heap.withLock { $0.nextDeadline }
        guard next != .max else { return }
        let now = MonotonicClock.now()
        DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(Int(next > now ? next - now : 0))) { [self] in
            fireDue()
        }
    }

    private func fireDue() {
        let now = MonotonicClock.now()
        var due: [TimerHeap.Entry] = []
        heap.withLock { h in while let t = h.popDue(now: now) { due.append(t) } }
        for t in due { t.fire() }
        arm()
    }
}
