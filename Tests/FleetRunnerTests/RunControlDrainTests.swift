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

    /// Waits (without sleeping) until a drain is registered as waiting.
    private func untilDrainWaits(_ control: RunControl) async {
        while control.waitingDrains == 0 { await Task.yield() }
    }

    func testDrainReturnsOnceTheLastUserFinishes() async {
        let control = RunControl()
        let gates = [Gate(), Gate(), Gate()]
        for g in gates { control.spawn { await g.wait() } }
        // A deadline far beyond the test's own bound: a drain that missed the last user's end
        // would come back false (after 30 s), not true.
        let deadline = MonotonicClock.now() &+ 30_000_000_000
        let drained = Task { await control.drain(until: deadline) }
        await untilDrainWaits(control)
        gates[0].open()
        gates[2].open()
        XCTAssertEqual(control.waitingDrains, 1, "two of three users ended: the drain still waits")
        gates[1].open()
        let all = await drained.value
        XCTAssertTrue(all, "drain came back at its deadline instead of when the last user ended")
        XCTAssertEqual(control.liveTasks, 0)
        XCTAssertLessThan(MonotonicClock.now(), deadline)
        XCTAssertEqual(control.waitingDrains, 0)
    }

    func testSeveralDrainsAreAllWokenByTheLastUser() async {
        let control = RunControl()
        let gate = Gate()
        control.spawn { await gate.wait() }
        let deadline = MonotonicClock.now() &+ 30_000_000_000
        let a = Task { await control.drain(until: deadline) }
        let b = Task { await control.drain(until: deadline) }
        while control.waitingDrains < 2 { await Task.yield() }
        gate.open()
        let (ra, rb) = (await a.value, await b.value)
        XCTAssertTrue(ra)
        XCTAssertTrue(rb)
    }

    func testDrainGivesUpAtItsDeadlineWhileAUserLives() async {
        let control = RunControl()
        let gate = Gate()
        control.spawn { await gate.wait() }
        let deadline = MonotonicClock.now() &+ 100_000_000
        let all = await control.drain(until: deadline)
        XCTAssertFalse(all)
        XCTAssertGreaterThanOrEqual(MonotonicClock.now(), deadline, "returned before its deadline")
        XCTAssertEqual(control.liveTasks, 1)
        XCTAssertEqual(control.waitingDrains, 0, "a timed-out drain is forgotten")
        gate.open()
        let later = await control.drain(until: MonotonicClock.now() &+ 30_000_000_000)
        XCTAssertTrue(later)
    }

    func testDrainWithNoUsersOrAPastDeadline() async {
        let control = RunControl()
        let none = await control.drain(until: 0)
        XCTAssertTrue(none, "nobody alive: drained, whatever the deadline")
        let gate = Gate()
        control.spawn { await gate.wait() }
        let past = await control.drain(until: MonotonicClock.now())
        XCTAssertFalse(past)
        gate.open()
        let after = await control.drain(until: MonotonicClock.now() &+ 30_000_000_000)
        XCTAssertTrue(after)
    }

    /// Users ending while drains register: each drain sees either no user or the last one's end.
    func testDrainNeverMissesAnEndThatRacesWithIt() async {
        let control = RunControl()
        for round in 0..<300 {
            control.spawn { for _ in 0..<(round % 4) { await Task.yield() } }
            let all = await control.drain(until: MonotonicClock.now() &+ 20_000_000_000)
            XCTAssertTrue(all, "round \(round)")
            XCTAssertEqual(control.liveTasks, 0, "round \(round)")
        }
    }
}
