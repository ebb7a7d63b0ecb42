import FleetCore
import FleetMetrics

/// What a workload model may do: wait for an instant, start users, count dropped arrivals.
///
/// The driver belongs to one scenario. It knows nothing of journeys; the `Fleet` gives it a
/// `start` closure that builds a user, picks its journey and walks it once.
public final class ArrivalDriver: Sendable {
    /// Monotonic instant at which the scenario starts; the model's schedule is relative to it.
    public let start: UInt64
    let scenarioIndex: Int
    let seed: UInt64
    let control: RunControl
    let recorder: Recorder
    /// Builds and walks one user with the given local index and intended start.
    let walk: @Sendable (_ localIndex: Int, _ intended: UInt64) async -> Void
    private let nextIndex = AtomicCounter()

    init(start: UInt64, scenarioIndex: Int, seed: UInt64, control: RunControl, recorder: Recorder,
         walk: @escaping @Sendable (Int, UInt64) async -> Void) {
        self.start = start
        self.scenarioIndex = scenarioIndex
        self.seed = seed
        self.control = control
        self.recorder = recorder
        self.walk = walk
    }

    /// Sleeps until `instant`; false when the run is stopping (no new users may start).
    public func waitUntil(_ instant: UInt64) async -> Bool {
        if control.arrivalsStopped { return false }
        _ = await Pause.until(min(instant, control.arrivalsDeadline))
        return !control.arrivalsStopped && MonotonicClock.now() < control.arrivalsDeadline
    }

    /// Open models: starts a user now, meant to have started at `intended`, and returns at once.
    public func launch(intended: UInt64) {
        let index = nextIndex.next()
        control.spawn { await self.walk(index, intended) }
    }

    /// Closed models: runs a new user's journey to its end.
    public func runOne(intended: UInt64) async {
        let index = nextIndex.next()
        await control.spawn { await self.walk(index, intended) }.value
    }

    /// An arrival that could not start on time (no capacity): counted, never delayed.
    public func drop() { recorder.count("dropped_arrivals") }

    public var active: Int { control.activeUsers }

    /// The generator for the schedule itself (arrival instants), separate from every user's.
    public func scheduleRandom() -> SeededRandom { SeededRandom(seed: seed, stream: 0xA11A_0000 &+ UInt64(scenarioIndex)) }
}

/// A lock-protected counter (user indices are handed out from concurrent slots).
final class AtomicCounter: @unchecked Sendable {
    private let lock = Lock()
    private var value = 0

    func next() -> Int { lock.withLock { defer { value += 1 }; return value } }
}
