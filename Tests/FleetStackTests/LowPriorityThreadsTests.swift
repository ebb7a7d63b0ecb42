import Foundation
import Synchronization
import FleetTestSupport
import XCTest
@testable import FleetStack
#if canImport(Glibc)
import Glibc
#endif

/// The stack's threads for audio analysis: below the caller's priority, bounded, and gone when idle or stopped.
final class LowPriorityThreadsTests: XCTestCase {
    func testJobsRunOnThreadsTenNiceStepsBelowTheCaller() throws {
        #if os(Linux)
        let pool = LowPriorityThreads(limit: 1)
        defer { pool.stop() }
        errno = 0
        let caller = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
        XCTAssertEqual(errno, 0)
        let seen = Mutex<Int32?>(nil), ran = DispatchSemaphore(value: 0)
        pool.async {
            seen.withLock { $0 = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0) }
            ran.signal()
        }
        XCTAssertEqual(ran.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(seen.withLock { $0 }, min(19, caller + 10), "the job's thread is 10 nice steps below the caller")
        XCTAssertEqual(getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0), caller, "the caller's own priority is unchanged")
        #endif
    }

    func testAtMostLimitThreadsRunAndEveryJobRuns() throws {
        let pool = LowPriorityThreads(limit: 2)
        defer { pool.stop() }
        let release = DispatchSemaphore(value: 0), done = DispatchGroup()
        let running = Atomic<Int>(0), most = Atomic<Int>(0)
        for _ in 0..<6 {
            done.enter()
            pool.async {
                let now = running.add(1, ordering: .sequentiallyConsistent).newValue
                _ = most.max(now, ordering: .sequentiallyConsistent)
                release.wait()
                running.subtract(1, ordering: .sequentiallyConsistent)
                done.leave()
            }
        }
        XCTAssertTrue(eventually(within: 10) { running.load(ordering: .sequentiallyConsistent) == 2 }, "two jobs start")
        XCTAssertEqual(pool.liveThreads, 2)
        for _ in 0..<6 { release.signal() }
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success, "all six jobs ran")
        XCTAssertEqual(most.load(ordering: .sequentiallyConsistent), 2, "never more than the limit at once")
    }

    func testIdleThreadsEndAfterTheKeepAliveAndComeBackForNewWork() throws {
        let pool = LowPriorityThreads(limit: 2, keepAlive: 0.05)
        defer { pool.stop() }
        let ran = DispatchSemaphore(value: 0)
        pool.async { ran.signal() }
        XCTAssertEqual(ran.wait(timeout: .now() + 10), .success)
        XCTAssertTrue(eventually(within: 10) { pool.liveThreads == 0 }, "the idle thread ended")
        pool.async { ran.signal() }
        XCTAssertEqual(ran.wait(timeout: .now() + 10), .success, "a job after the threads ended starts a new one")
    }

    func testStopDropsQueuedAndLaterJobsAndEndsTheThreads() throws {
        let pool = LowPriorityThreads(limit: 1)
        let started = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0)
        let ranAfter = Atomic<Int>(0)
        pool.async { started.signal(); release.wait() }
        XCTAssertEqual(started.wait(timeout: .now() + 10), .success)
        pool.async { ranAfter.add(1, ordering: .sequentiallyConsistent) }  // queued behind the running one
        pool.stop()
        pool.async { ranAfter.add(1, ordering: .sequentiallyConsistent) }  // after the stop
        release.signal()
        XCTAssertTrue(eventually(within: 10) { pool.liveThreads == 0 }, "the thread ended after its running job")
        XCTAssertEqual(ranAfter.load(ordering: .sequentiallyConsistent), 0, "neither the queued job nor the later one ran")
    }
}
