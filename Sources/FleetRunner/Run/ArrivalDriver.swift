import FleetCore
import FleetMetrics
import Synchronization

/// What a workload model may do: wait for an instant, start users, count dropped arrivals.
///
/// The driver belongs to one scenario. It knows nothing of journeys; the `Fleet` gives it a
/// `walk` closure that builds a user, picks its journey and walks it once.
public final class ArrivalDriver: Sendable {
    /// Monotonic instant at which the scenario starts; the model's schedule is relative to it.
    public let start: UInt64
    /// The scenario's name, for its own counters (`users_started:<name>`, `dropped_arrivals:<name>`).
    public let scenarioName: String
    let scenarioIndex: Int
    let seed: UInt64
    /// The part of the run this process plays; models start only the users it owns.
    public let shard: Shard
    let control: RunControl
    let recorder: Recorder
    /// Builds and walks one user with the given local index and intended start.
    let walk: @Sendable (_ localIndex: Int, _ intended: UInt64) async -> Void
    /// Users of this scenario alive now: `max_users` caps a scenario, not the whole run.
    private let alive = Atomic<Int>(0)

    init(start: UInt64, scenarioIndex: Int, scenarioName: String = "", seed: UInt64, shard: Shard = .whole,
         control: RunControl, recorder: Recorder, walk: @escaping @Sendable (Int, UInt64) async -> Void) {
        self.start = start
        self.scenarioIndex = scenarioIndex
        self.scenarioName = scenarioName.isEmpty ? "scenario\(scenarioIndex)" : scenarioName
        self.seed = seed
        self.shard = shard
        self.control = control
        self.recorder = recorder
        self.walk = walk
    }

    /// Sleeps until `instant`; false when the run is stopping (no new users may start). A closed
    /// model's slot passes its id: its sleep is then one that a stop of arrivals ends
    /// (`RunControl.slotSleep`), as a stop cancels this driver's own sleeps.
    public func waitUntil(_ instant: UInt64, slot: Int? = nil) async -> Bool {
        if control.arrivalsStopped { return false }
        let until = min(instant, control.arrivalsDeadline)
        if let slot { await control.slotSleep(id: slot, until: until) } else { _ = await Pause.until(until) }
        return !control.arrivalsStopped && MonotonicClock.now() < control.arrivalsDeadline
    }

    /// Open models: starts user number `index` now, meant to have started at `intended`, and
    /// returns at once. The number is the user's place in the schedule (its generator's stream),
    /// not a count of users started, so that it is the same in every shard and every run.
    public func launch(intended: UInt64, index: Int) {
        begin()
        control.spawn { await self.walkWithRoom(index, intended); self.alive.subtract(1, ordering: .relaxed) }
    }

    /// A user's walk, its frames given room in one slab first (`TaskFrames.reserve`): it thinks
    /// at the bottom of its deepest frames, whose slabs its task keeps. Made when a user starts,
    /// not when a slot's task does: a slot waiting for its first user's turn holds one slab.
    private func walkWithRoom(_ index: Int, _ intended: UInt64) async {
        await TaskFrames.reserve()
        await walk(index, intended)
    }

    /// Closed models: runs `count` slots, each in one task of its own (`RunControl.spawnSlot`)
    /// that calls `loop(j, slot)`, and returns when every slot has ended, or at once when the
    /// run stops arrivals (this driver's task is cancelled then; the users walking keep their
    /// grace, the slots asleep end). Slot tasks are not children of the driver: cancelling it
    /// must not cancel users, and a task group of 200,000 children drains quadratically.
    ///
    /// The slots are spawned `pacing.batch` at a time with a pause between batches. Each new
    /// slot task is a job on an I/O loop that runs at once (to its first sleep); 20,000 of them
    /// spawned in one go (a scenario starting mid-run) queued ~50 ms of work on each loop ahead
    /// of the users already walking there, whose lag p99 rose to 60 ms in that window.
    public func runSlots(_ count: Int, pacing: SlotPacing = .standard,
                         _ loop: @escaping @Sendable (_ j: Int, _ slot: Slot) async -> Void) async {
        let left = Countdown(count)
        let n = max(0, count)
        control.reserveTasks(n)
        for j in 0..<n {
            if j > 0, j % pacing.batch == 0 { _ = await Pause.until(MonotonicClock.now() &+ pacing.pauseNanos) }
            if control.arrivalsStopped { left.done(count - j); break }
            control.spawnSlot { id in
                await loop(j, Slot(driver: self, id: id))
                left.done()
            }
        }
        await left.wait()
    }

    /// A slot's user number `index`, meant to start at `intended`, walked in the slot's task.
    func walkInSlot(intended: UInt64, index: Int) async {
        begin()
        control.userBegins()
        await walkWithRoom(index, intended)
        control.userEnds()
        alive.subtract(1, ordering: .relaxed)
    }

    /// Counts the user as alive before its task exists, so a capacity check right after a launch
    /// already sees it.
    private func begin() {
        alive.add(1, ordering: .relaxed)
        recorder.count(.usersStarted(scenarioName))
    }

    /// An arrival that could not start on time (no capacity): counted, never delayed. The run-wide
    /// `dropped_arrivals` is what the verdict reads; the per-scenario one says where.
    public func drop() {
        recorder.count(.droppedArrivals)
        recorder.count(.droppedArrivals(scenarioName))
    }

    /// Users of this scenario alive now.
    public var active: Int { alive.load(ordering: .relaxed) }

    /// The generator for the schedule itself (arrival instants), separate from every user's.
    public func scheduleRandom() -> SeededRandom { SeededRandom(seed: seed, stream: 0xA11A_0000 &+ UInt64(scenarioIndex)) }
}

/// How `ArrivalDriver.runSlots` spreads the spawning of its slot tasks: `batch` slots, then a
/// pause of `pauseNanos`. The standard 256 per millisecond starts 200,000 slots in under a second,
/// faster than any ramp a profile can ask of one process, and queues at most ~1 ms of new-task work
/// on the loops at a time.
public struct SlotPacing: Sendable {
    public var batch: Int
    public var pauseNanos: UInt64

    public init(batch: Int, pauseNanos: UInt64) {
        precondition(batch >= 1, "SlotPacing: batch must be >= 1")
        self.batch = batch
        self.pauseNanos = pauseNanos
    }

    public static let standard = SlotPacing(batch: 256, pauseNanos: 1_000_000)
}
