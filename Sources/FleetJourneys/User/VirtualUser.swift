import FleetCheck
import FleetClient
import FleetCore
import FleetMetrics

/// One simulated person with one phone: a few hundred bytes of state advanced by its own task.
///
/// A user never owns a thread: it is suspended on Dispatch timers (think times, polls) and on the
/// HTTP engine's completions. `nextIntended` is the instant its next request is *meant* to go
/// out; every request is recorded against it, so a late generator cannot pass for a fast server.
/// Only its own journey task touches it (hence `@unchecked Sendable`).
///
/// Frames: a user's async calls keep their frames on its task's allocator, which holds on to the
/// slabs of the deepest chain of calls the task ever reached until the task ends, thinks
/// included. An async function inlined into its caller adds its frame to the caller's (the sum
/// over every callee, not the largest), so the journeys' async steps are `@inline(never)`:
/// `recordAndSubmit` alone was a 5.2 KB frame held by every user that had recorded a take. And
/// each await in a function holds slots of its own in its frame (its result, its arguments):
/// a step that awaits in many places is cheaper split, one await a piece. The task that walks a
/// user first makes room for its frames in one slab (`TaskFrames.reserve`, ArrivalDriver): the
/// allocator's ~1 KB slabs each left a third empty behind ~600-byte frames.
// @unchecked: unguarded `var`s, confined to the user's own journey task.
public final class VirtualUser: @unchecked Sendable {
    public let index: Int
    public let world: FleetWorld
    public let device: Device
    public var random: SeededRandom
    public let cohort: String
    public private(set) var journey = ""
    /// The step the user is in, for the funnel and for reporting where a journey ended.
    public private(set) var step = "start"
    public var nextIntended: UInt64
    /// Called with every step the user reaches; the kill machinery (`Lifecycle.swift`) arms an
    /// app kill on it. Set and cleared by the user's own task only.
    public var onReach: (@Sendable (String) -> Void)?
    /// The user's invariant checker (nil when the run does not check); steps never consult it,
    /// only the amplifiers read the ids it has seen.
    public var checker: UserChecker?
    /// The race amplifiers of the user's scenario (all off by default).
    public var amplifiers = Amplifiers()
    /// When the user last received a first settlement (monotonic), for the midnight amplifier.
    public var lastSettledAt: UInt64 = 0
    /// Keys the walk asked for that its journey did not declare (`Journey.keys`), as
    /// `journey.decision` or `think:name`: a profile could not set them, since validation would
    /// refuse them. Empty in a correct build; the journey tests check it.
    public private(set) var undeclaredKeys: Set<String> = []
    private var declared = JourneyKeys()

    public init(index: Int, seed: UInt64, world: FleetWorld, device: Device, cohort: String, start: UInt64) {
        self.index = index
        self.world = world
        self.device = device
        self.cohort = cohort
        random = SeededRandom(seed: seed, stream: UInt64(index))
        nextIntended = start
    }

    public var client: APIClient { world.client }
    public var credentials: Credentials { device.credentials }

    /// Walks `journey` once and records how it ended.
    public func run(_ journey: any Journey) async -> JourneyOutcome {
        self.journey = journey.name
        checker?.setJourney(journey.name)
        declared = journey.keys
        step = "start"
        let started = nextIntended
        world.recorder.journeyStarted(journey.name, cohort: cohort)
        do {
            try await journey.walk(self)
            world.recorder.journeyEnded(journey.name, cohort: cohort, outcome: .completed, step: "done", errorCode: nil,
                                        intended: started, end: MonotonicClock.now())
            return .completed
        } catch {
            world.recorder.journeyEnded(journey.name, cohort: cohort, outcome: error.outcome, step: error.step,
                                        errorCode: error.code, intended: started, end: MonotonicClock.now())
            return error.outcome
        }
    }

    /// Marks arrival at a step of the funnel.
    public func reach(_ name: String) {
        step = name
        world.recorder.journeyReached(journey, cohort: cohort, step: name)
        onReach?(name)
    }

    /// Reaches `round<N>_<what>`, the name joined in one step (an interpolation per step reached
    /// was ~300 instructions, four steps a take; names of up to 15 bytes need no allocation).
    func reach(round: Int, _ what: String) {
        reach(Concat.join("round", (0...9).contains(round) ? Self.digits[round] : String(round), "_", what))
    }

    private static let digits = (0...9).map { String($0) }

    /// A pause this long or longer lets the checker compact the user's trace first (a copy of
    /// its entries, once per long think; shorter thinks would pay it too often for little).
    public static let restMs = 10_000.0

    /// Pauses for the step's think time (scaled), starting from the end of the last response.
    public func think(_ name: String) async throws(JourneyStop) {
        if !declared.thinkTimes.contains(name) { undeclaredKeys.insert("think:\(name)") }
        let ms = world.behaviour.thinkTime(name).sample(&random) * world.behaviour.timeScale
        try await pause(ms: ms)
    }

    /// Pauses `ms` after the current intended instant; throws when the task is cancelled.
    public func pause(ms: Double) async throws(JourneyStop) {
        nextIntended = max(nextIntended, MonotonicClock.now()) &+ UInt64(max(0, ms) * 1e6)
        if ms >= Self.restMs { checker?.willRest() }
        guard await Pause.until(nextIntended) else { throw .interrupted(step: step) }
    }

    /// A branch of the Markov chain: true with the profile's probability for `key`.
    public func decide(_ key: String, default p: Double) -> Bool {
        let name = Concat.join(journey, ".", key)  // made once, in one allocation (bench/instructions.sh)
        if !declared.decisions.contains(key) { undeclaredKeys.insert(name) }
        let taken = random.chance(world.behaviour.probability(name, default: p))
        checker?.decided(name, taken ? "yes" : "no")
        return taken
    }

    /// Unwraps a call's result; an error ends the journey as failed at the current step. The
    /// next request is meant to go out as soon as this response arrived.
    public func expect<T>(_ result: Result<T, APIError>) throws(JourneyStop) -> T {
        switch result {
        case let .success(v):
            nextIntended = MonotonicClock.now()
            return v
        case let .failure(e):
            throw stop(for: e)
        }
    }

    /// The stop a given API error means at this step (a kill shows as `interrupted`).
    public func stop(for e: APIError) -> JourneyStop {
        if e.isAborted || Task.isCancelled { return .interrupted(step: step) }
        return .failed(step: step, code: e.code, message: e.message)
    }

    /// A fresh idempotency key from the user's generator (deterministic per seed).
    public func newKey() -> String {
        // Two random words, each spelled as its little-endian bytes in hex (the byte-swapped
        // word's digits from the top), without building the byte arrays.
        let a = random.next(), b = random.next()
        return Hex.encode(a.byteSwapped, digits: 16) + Hex.encode(b.byteSwapped, digits: 16)
    }
}
