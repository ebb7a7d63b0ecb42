import FleetCore

/// `--start-at`: shards on many machines begin their schedules at one wall-clock instant.
///
/// Each process waits on its own monotonic clock for the instant the wall clock names, so that a
/// clock step while waiting cannot move the start. A shard that gets there after the barrier
/// (a pod scheduled late) starts at once on its own schedule, says by how much, and records it;
/// `fleet merge` aligns its windows by its real wall-clock start and names it in the report.
/// It does not start "in the past" to catch up: that would fire every arrival it missed in one
/// burst at the target.
enum StartBarrier {
    struct Start {
        /// Monotonic instant the schedule starts at.
        var instant: UInt64
        /// The same instant on the wall clock, milliseconds since the epoch.
        var wallMillis: Int64
        /// How long after the barrier the start is (0 without a barrier or when on time).
        var lateMillis: Int64
    }

    /// A short lead so that the first arrivals are not late by construction.
    static let leadNanos: UInt64 = 50_000_000

    /// Waits for the barrier; a stop (Ctrl-C) while waiting ends the wait at once.
    static func wait(until barrierMillis: Int64?, control: RunControl, say: @Sendable (String) -> Void) async -> Start {
        let nowWall = WallClock.nowMillis(), nowMono = MonotonicClock.now()
        guard let at = barrierMillis else {
            return Start(instant: nowMono &+ leadNanos, wallMillis: nowWall + Int64(leadNanos / 1_000_000), lateMillis: 0)
        }
        let ahead = at - nowWall
        if ahead > 0 {
            say("waiting \(Format.seconds(ahead)) s for the start barrier \(RFC3339.format(millis: at))")
            let instant = nowMono &+ UInt64(ahead) &* 1_000_000
            let waiter = Task { _ = await Pause.until(instant) }
            control.whenArrivalsStop { waiter.cancel() }
            await waiter.value
            return Start(instant: instant, wallMillis: at, lateMillis: 0)
        }
        let late = -ahead + Int64(leadNanos / 1_000_000)
        say("started late: \(late) ms after the start barrier \(RFC3339.format(millis: at))")
        return Start(instant: nowMono &+ leadNanos, wallMillis: nowWall + Int64(leadNanos / 1_000_000), lateMillis: late)
    }

    enum Format {
        static func seconds(_ millis: Int64) -> String {
            let s = Double(millis) / 1000
            return String(Int64(s)) + "." + String(Int64((s * 10).rounded()) % 10)
        }
    }
}
