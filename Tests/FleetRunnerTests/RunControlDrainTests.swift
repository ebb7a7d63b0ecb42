import FleetCore
import Synchronization
import XCTest
@testable import FleetRunner

/// `RunControl.drain` is woken by the last user's end, and by its deadline only when users remain.
final class RunControlDrainTests: XCTestCase {
    /// A user that ends when the test opens its gate.
    final class Gate: Sendable {
        private let state = Mutex<(open: Bool, waiter: CheckedContinuation<Void, Never>?)>((false, nil))

        func wait() async {
            await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
                let now = state.withLock { s -> Bool in
                    if s.open { return true }
                    s.waiter = c
                    return false
                }
                if now { c.resume() }
            }
        }

        func open() {
            let w = state.withLock { s -> CheckedContinuation<Void, Never>? in
                s.open = true
                defer { s.waiter = nil }
                return s.waiter
            }
            w?.resume()
        }
    }

    /// The first of two answers: a drain's, or a watchdog's nil, so that a drain that never
    /// returns fails the test instead of hanging it.
    final class FirstAnswer: Sendable {
        private let state = Mutex<(answer: Bool??, waiter: CheckedContinuation<Bool?, Never>?)>((nil, nil))

        func settle(_ answer: Bool?) {
            let w = state.withLock { s -> CheckedContinuation<Bool?, Never>? in
                guard s.answer == nil else { return nil }
                s.answer = .some(answer)
                defer { s.waiter = nil }
                return s.waiter
            }
            w?.resume(returning: answer)
        }

        func value() async -> Bool? {
            await withCheckedContinuation { (c: CheckedContinuation<Bool?, Never>) in
                let now = state.withLock { s -> Bool?? in
                    if let a = s.answer { return .some(a) }
                    s.waiter = c
                    return nil
                }
                if let a = now { c.resume(returning: a) }
            }
        }
    }

    /// `task`'s answer, or nil when it has none after `seconds` (a watchdog, not a wait for an event).
    private func answer(of task: Task<Bool, Never>, within seconds: Double = 20) async -> Bool? {
        let first = FirstAnswer()
        Task { first.settle(await task.value) }
        Task { await Pause.sleep(seconds: seconds); first.settle(nil) }
        return await first.value()
    }

    private func drain(_ control: RunControl, until instant: UInt64) async -> Bool? {
        await answer(of: Task { await control.drain(until: instant) })
    }

    /// Waits (without sleeping) until a drain is registered as waiting.
    private func untilDrainWaits(_ control: RunControl) async {
        while control.waitingDrains == 0 { await Task.yield() }
    }

    func testDrainReturnsOnceTheLastUserFinishes() async {
        let control = RunControl()
        let gates = [Gate(), Gate(), Gate()]
        for g in gates { control.spawn { await g.wait() } }
        // A drain that missed the last user's end would come back false at this deadline, not true.
        let deadline = MonotonicClock.now() &+ 10_000_000_000
        let drained = Task { await control.drain(until: deadline) }
        await untilDrainWaits(control)
        gates[0].open()
        gates[2].open()
        XCTAssertEqual(control.waitingDrains, 1, "two of three users ended: the drain still waits")
        gates[1].open()
        let all = await answer(of: drained)
        XCTAssertEqual(all, true, "drain came back at its deadline (false) or never (nil) instead of when the last user ended")
        XCTAssertEqual(control.liveTasks, 0)
        XCTAssertLessThan(MonotonicClock.now(), deadline)
        XCTAssertEqual(control.waitingDrains, 0)
    }

    func testSeveralDrainsAreAllWokenByTheLastUser() async {
        let control = RunControl()
        let gate = Gate()
        control.spawn { await gate.wait() }
        let deadline = MonotonicClock.now() &+ 10_000_000_000
        let a = Task { await control.drain(until: deadline) }
        let b = Task { await control.drain(until: deadline) }
        while control.waitingDrains < 2 { await Task.yield() }
        gate.open()
        let (ra, rb) = (await answer(of: a), await answer(of: b))
        XCTAssertEqual(ra, true)
        XCTAssertEqual(rb, true)
    }

    func testDrainGivesUpAtItsDeadlineWhileAUserLives() async {
        let control = RunControl()
        let gate = Gate()
        control.spawn { await gate.wait() }
        let deadline = MonotonicClock.now() &+ 100_000_000
        let all = await drain(control, until: deadline)
        XCTAssertEqual(all, false)
        XCTAssertGreaterThanOrEqual(MonotonicClock.now(), deadline, "returned before its deadline")
        XCTAssertEqual(control.liveTasks, 1)
        XCTAssertEqual(control.waitingDrains, 0, "a timed-out drain is forgotten")
        gate.open()
        let later = await drain(control, until: MonotonicClock.now() &+ 10_000_000_000)
        XCTAssertEqual(later, true)
    }

    func testDrainWithNoUsersOrAPastDeadline() async {
        let control = RunControl()
        let none = await drain(control, until: 0)
        XCTAssertEqual(none, true, "nobody alive: drained, whatever the deadline")
        let gate = Gate()
        control.spawn { await gate.wait() }
        let past = await drain(control, until: MonotonicClock.now())
        XCTAssertEqual(past, false)
        gate.open()
        let after = await drain(control, until: MonotonicClock.now() &+ 10_000_000_000)
        XCTAssertEqual(after, true)
    }

    /// Users ending while drains register: each drain sees either no user or the last one's end.
    func testDrainNeverMissesAnEndThatRacesWithIt() async {
        let control = RunControl()
        for round in 0..<300 {
            control.spawn { for _ in 0..<(round % 4) { await Task.yield() } }
            let all = await drain(control, until: MonotonicClock.now() &+ 5_000_000_000)
            guard all == true, control.liveTasks == 0 else { return XCTFail("round \(round): drain missed the end of the last user") }
        }
    }
}
