import Foundation
import FleetCore

/// The `debug.stall_*` hook: starves the bench of its own CPU for a while, on purpose.
///
/// At `stall_at_s` it occupies every thread that runs users with a busy loop for `stall_s`: each
/// of the engine's I/O loops when users run there (`RunControl.userExecutors`), else every
/// thread of Swift's cooperative pool (one per core). A busy loop rather than a sleep, because
/// a starved generator is one whose threads are busy elsewhere, and because Dispatch on Linux may
/// add threads to replace ones that sleep, which would hide the stall. Users whose timers fire
/// meanwhile resume late; their requests carry the intended start, so a bench that corrects for
/// coordinated omission shows the stall in its corrected latencies and in `scheduling_lag`.
enum GeneratorStall {
    /// Schedules the stall relative to the run's `start`; cancelling the task before it fires
    /// skips it. `say` reports when it happened.
    static func schedule(_ hooks: DebugHooks, start: UInt64, executors: [any TaskExecutor],
                         say: @escaping @Sendable (String) -> Void) -> Task<Void, Never> {
        Task {
            guard await Pause.until(start &+ UInt64(hooks.stallAtS * 1e9)) else { return }
            let targets: [(any TaskExecutor)?] = executors.isEmpty
                ? Array(repeating: nil, count: max(1, ProcessInfo.processInfo.activeProcessorCount)) : executors
            let until = MonotonicClock.now() &+ UInt64(hooks.stallS * 1e9)
            let what = executors.isEmpty ? "the users' pool" : "the I/O loops that run the users"
            say("debug: stalling \(what) (\(targets.count) thread\(targets.count == 1 ? "" : "s")) for \(hooks.stallS) s")
            await withTaskGroup(of: Void.self) { group in
                for e in targets {
                    group.addTask(executorPreference: e) { spin(until: until) }
                }
            }
        }
    }

    /// Burns CPU until `instant` without ever suspending (that is the point).
    static func spin(until instant: UInt64) {
        var x: UInt64 = 0
        while MonotonicClock.now() < instant {
            for i in 0..<1_000 { x = x &* 6364136223846793005 &+ UInt64(i) }
        }
        // Keeps the loop from being optimised away.
        if x == 42 { print("", terminator: "") }
    }
}
