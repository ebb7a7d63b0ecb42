import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A few threads for the stack's CPU-heavy background work — decoding uploaded audio for its
/// assessment — each at a nice value 10 above the threads that answer requests.
///
/// Why not a Dispatch queue: the reference stack usually shares a small machine with the bench,
/// and decoding an Opus clip the first time it is heard costs 0.1–0.2 s of CPU. At the bench's
/// priority, two such decodes took both cores of a 2-core machine when the walkers' first uploads
/// arrived, and the bench's I/O threads, waiting for a core, sent requests 20–55 ms late
/// (`bench/scale-memory.sh`'s active phase, perf samples of 2026-12-04). At +10 a decode's weight
/// is about a tenth of a nice-0 thread's, so when both want a core, request handling — the
/// stack's and the bench's — runs first and the decode takes what is left. Dispatch's threads are
/// shared by all the stack's work and cannot be lowered and raised again without privilege (on
/// Linux the nice value is a thread's own; raising it back needs CAP_SYS_NICE), hence threads of
/// its own. They start on demand, at most `limit`, and end after `keepAlive` without work or at
/// `stop()`, so a stack that is never stopped leaves no thread behind for long.
final class LowPriorityThreads: @unchecked Sendable {
    // @unchecked: every stored var is read and written with `cond` locked.
    typealias Job = @Sendable () -> Void

    private let cond = NSCondition()
    private var jobs: [Job] = []
    private var head = 0
    private var live = 0
    private var idle = 0
    private var stopped = false
    let limit: Int
    let niceIncrement: Int32
    let keepAlive: TimeInterval

    init(limit: Int = ProcessInfo.processInfo.activeProcessorCount, niceIncrement: Int32 = 10, keepAlive: TimeInterval = 10) {
        self.limit = max(1, limit)
        self.niceIncrement = niceIncrement
        self.keepAlive = keepAlive
    }

    /// Runs `job` on one of the threads; dropped once the pool is stopped.
    func async(_ job: @escaping Job) {
        cond.lock()
        defer { cond.unlock() }
        guard !stopped else { return }
        jobs.append(job)
        if jobs.count - head > idle && live < limit {
            live += 1
            let t = Thread { [self] in work() }
            t.name = "fleet-stack-cpu"
            t.start()
        }
        if idle > 0 { cond.signal() }
    }

    /// Threads alive now (tests).
    var liveThreads: Int {
        cond.lock()
        defer { cond.unlock() }
        return live
    }

    /// No job starts from now on; the threads end after the job they are running.
    func stop() {
        cond.lock()
        stopped = true
        jobs.removeAll()
        head = 0
        cond.broadcast()
        cond.unlock()
    }

    private func work() {
        #if os(Linux)
        // The calling thread's own nice value (Linux keeps one per thread). A failure (a limit on
        // nice values) leaves the thread at the stack's priority: slower for the bench, still correct.
        _ = nice(niceIncrement)
        #endif
        cond.lock()
        while true {
            while head == jobs.count && !stopped {
                idle += 1
                let signalled = cond.wait(until: Date(timeIntervalSinceNow: keepAlive))
                idle -= 1
                if !signalled && head == jobs.count { break }
            }
            if stopped || head == jobs.count { break }
            let job = jobs[head]
            head += 1
            if head == jobs.count { jobs.removeAll(keepingCapacity: true); head = 0 }
            cond.unlock()
            job()
            cond.lock()
        }
        live -= 1
        cond.unlock()
    }
}
