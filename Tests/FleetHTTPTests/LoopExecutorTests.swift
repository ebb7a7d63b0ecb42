import Dispatch
import FleetCore
import FleetTestSupport
import XCTest
@testable import FleetHTTP

/// Users on the I/O loops (`IOLoop+Executor`): a task that prefers a loop runs there, its
/// requests go to that loop and its answers and think times resume it there; nothing is lost
/// when the engine stops under it.
final class LoopExecutorTests: XCTestCase {
    private var embedded: EmbeddedStack?
    private var baseURL: String { embedded?.baseURL ?? "" }

    override func setUpWithError() throws { embedded = try EmbeddedStack() }

    override func tearDown() {
        embedded?.stop()
        embedded = nil
    }

    /// Where a step of the task ran: on which loop (index in `userExecutors`), or nil elsewhere.
    private static func loopIndex(_ engine: HTTPEngine) -> Int? {
        guard let current = LoopThread.current else { return nil }
        return engine.userExecutors.firstIndex { ($0 as AnyObject) === current }
    }

    /// Runs `body` in a task preferring `executor` and waits for it, at most `seconds`.
    private func run<T: Sendable>(on executor: (any TaskExecutor)?, seconds: Double = 10,
                                  _ body: @escaping @Sendable () async -> T) -> T? {
        let box = Box<T?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task(executorPreference: executor) {
            box.value = await body()
            done.signal()
        }
        guard done.wait(timeout: .now() + seconds) == .success else {
            XCTFail("the task did not end within \(seconds) s")
            return nil
        }
        return box.value
    }

    private static func send(_ engine: HTTPEngine, _ url: String) async -> Result<HTTPResponse, HTTPError> {
        await withCheckedContinuation { c in
            engine.send(HTTPRequest(method: "GET", url: url), queue: nil) { c.resume(returning: $0) }
        }
    }

    func testTimerHeapPopsByDeadlineThenBySchedulingOrderAndOnlyWhenDue() {
        var heap = TimerHeap()
        let fired = Box<[Int]>([])
        let deadlines: [UInt64] = [50, 10, 30, 10, 70, 20, 30, 5, 60, 10]
        for (i, d) in deadlines.enumerated() { heap.push(d) { fired.value.append(i) } }
        XCTAssertEqual(heap.nextDeadline, 5)
        XCTAssertNil(heap.popDue(now: 4), "nothing is due before the earliest deadline")
        while let t = heap.popDue(now: 30) { t.fire() }
        // Deadline order; equal deadlines (10, 10, 10 and 30, 30) in the order they were set.
        XCTAssertEqual(fired.value, [7, 1, 3, 9, 5, 2, 6])
        XCTAssertEqual(heap.entries.count, 3)
        XCTAssertEqual(heap.nextDeadline, 50)
        var rest: [UInt64] = []
        while let t = heap.popDue(now: .max) { rest.append(t.deadline) }
        XCTAssertEqual(rest, [50, 60, 70])
        XCTAssertTrue(heap.isEmpty)
        XCTAssertEqual(heap.nextDeadline, .max)
    }

    func testATaskPreferringALoopRunsSendsIsAnsweredAndSleepsOnThatLoop() throws {
        var config = HTTPEngine.Configuration()
        config.ioThreads = 2
        let engine = try HTTPEngine(configuration: config)
        defer { engine.shutdown() }
        XCTAssertEqual(engine.userExecutors.count, 2)
        XCTAssertNil(LoopThread.current, "the test's own thread runs no loop")
        let url = baseURL + "/healthz"
        for index in 0..<2 {
            let seen = run(on: engine.userExecutors[index]) { () -> [Int?] in
                var where_: [Int?] = [Self.loopIndex(engine)]
                let inFlightWhileSent = Box(0)
                let r1 = await withCheckedContinuation { c in
                    engine.send(HTTPRequest(method: "GET", url: url), queue: nil) { c.resume(returning: $0) }
                    inFlightWhileSent.value = engine.inFlight
                }
                where_.append(Self.loopIndex(engine))
                let deadline = MonotonicClock.now() &+ 30_000_000
                let slept = await Pause.until(deadline)
                let woke = MonotonicClock.now()
                where_.append(Self.loopIndex(engine))
                let r2 = await Self.send(engine, url)
                where_.append(Self.loopIndex(engine))
                let statuses = [r1, r2].map { (try? $0.get())?.status }
                return where_ + [statuses == [200, 200] ? 1 : 0, slept && woke >= deadline ? 1 : 0, inFlightWhileSent.value]
            }
            // Before and after the answer, after the pause, after the second answer: the same loop.
            XCTAssertEqual(seen, [index, index, index, index, 1, 1, 1], "loop \(index)")
        }
    }

    func testCancellingATaskAsleepOnALoopWakesItAtOnce() throws {
        let engine = try HTTPEngine()
        defer { engine.shutdown() }
        let started = DispatchSemaphore(value: 0)
        let result = Box<(Bool, UInt64)?>(nil)
        let done = DispatchSemaphore(value: 0)
        let task = Task(executorPreference: engine.userExecutors[0]) {
            started.signal()
            let slept = await Pause.until(MonotonicClock.now() &+ 60_000_000_000)
            result.value = (slept, MonotonicClock.now())
            done.signal()
        }
        XCTAssertEqual(started.wait(timeout: .now() + 5), .success)
        let cancelled = MonotonicClock.now()
        task.cancel()
        XCTAssertEqual(done.wait(timeout: .now() + 5), .success, "a cancelled pause on a loop must end")
        XCTAssertEqual(result.value?.0, false, "a cancelled pause says so")
        XCTAssertLessThan(Double((result.value?.1 ?? .max) &- cancelled) / 1e9, 5)
    }

    func testTasksAsleepWhenTheEngineStopsWakeAtTheirDeadlinesElsewhere() throws {
        let engine = try HTTPEngine()
        let executor = engine.userExecutors[0]
        // Three sleepers with different deadlines, so the stopped loop's timers are handed on
        // as a set (one Dispatch timer re-armed for each next deadline).
        let delays: [UInt64] = [300_000_000, 150_000_000, 220_000_000]
        let asleep = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        let results = Box<[Int: (slept: Bool, late: Bool, onLoop: Bool)]>([:])
        for (i, delay) in delays.enumerated() {
            Task(executorPreference: executor) {
                let deadline = MonotonicClock.now() &+ delay
                // Signalled in the same job as the timer is set: the loop handles the stop only
                // after this job has suspended, so the timer is in its heap by then.
                asleep.signal()
                let slept = await Pause.until(deadline)
                let r = (slept, MonotonicClock.now() >= deadline, LoopThread.current != nil)
                results.mutate { $0[i] = r }
                done.signal()
            }
        }
        for _ in delays { XCTAssertEqual(asleep.wait(timeout: .now() + 5), .success) }
        engine.shutdown()
        for _ in delays { XCTAssertEqual(done.wait(timeout: .now() + 5), .success, "a timer set on a stopped loop must still fire") }
        for i in delays.indices {
            XCTAssertEqual(results.value[i]?.slept, true, "sleeper \(i)")
            XCTAssertEqual(results.value[i]?.late, true, "sleeper \(i): handed on, a timer keeps its deadline")
            XCTAssertEqual(results.value[i]?.onLoop, false, "sleeper \(i): after the stop the task runs on Swift's global executor")
        }

        // A task started on the stopped loop runs too, and a send from it fails as aborted.
        let url = baseURL + "/healthz"
        let after = run(on: executor) { () -> (Bool, HTTPErrorKind?) in
            let r = await Self.send(engine, url)
            if case let .failure(e) = r { return (LoopThread.current == nil, e.kind) }
            return (LoopThread.current == nil, nil)
        }
        XCTAssertEqual(after?.0, true)
        XCTAssertEqual(after?.1, .aborted)
    }
}
