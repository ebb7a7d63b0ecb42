import Synchronization

/// One slot of a closed model, as its loop sees it: wait for the next user's turn, walk it.
/// Both happen in the slot's own task (see `ArrivalDriver.runSlots`).
public struct Slot: Sendable {
    let driver: ArrivalDriver
    let id: Int

    /// Sleeps until `instant`; false when the run is stopping (no new users may start).
    public func waitUntil(_ instant: UInt64) async -> Bool {
        await driver.waitUntil(instant, slot: id)
    }

    /// Walks user number `index` (its place in the schedule), meant to start at `intended`, to its end.
    public func walk(intended: UInt64, index: Int) async {
        await driver.walkInSlot(intended: intended, index: index)
    }
}

/// How many slots are still running: `wait` returns when none is, or when its caller is cancelled.
final class Countdown: Sendable {
    private struct State {
        var left: Int
        var waiter: CheckedContinuation<Void, Never>?
        var released = false
    }
    private let state: Mutex<State>

    init(_ count: Int) { state = Mutex(State(left: max(0, count))) }

    func done(_ n: Int = 1) {
        let w = state.withLock { s -> CheckedContinuation<Void, Never>? in
            s.left -= n
            return s.left <= 0 ? release(&s) : nil
        }
        w?.resume()
    }

    func wait() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
                let now = state.withLock { s -> Bool in
                    if s.released || s.left <= 0 { return true }
                    s.waiter = c
                    return false
                }
                if now { c.resume() }
            }
        } onCancel: {
            state.withLock { release(&$0) }?.resume()
        }
    }

    /// Marks the wait over and hands back its waiter, if one is waiting, to resume outside the lock.
    private func release(_ s: inout State) -> CheckedContinuation<Void, Never>? {
        s.released = true
        defer { s.waiter = nil }
        return s.waiter
    }
}
