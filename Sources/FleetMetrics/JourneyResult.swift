/// What happened to one journey for one cohort: the funnel, the exits and the durations.
public struct JourneyResult: Sendable, Codable, Equatable {
    public var journey: String
    public var cohort: String
    public var started: Int64
    public var completed: Int64
    public var abandoned: Int64
    public var failed: Int64
    /// How many users reached each step, in the order steps were first reached (the funnel order).
    public var steps: [StepCount]
    /// Where and why users left without completing, sorted by outcome, step, code.
    public var exits: [JourneyExit]
    /// Durations of completed journeys (end − intended start), microseconds.
    public var duration: Histogram

    public init(journey: String, cohort: String, started: Int64 = 0, completed: Int64 = 0,
                abandoned: Int64 = 0, failed: Int64 = 0, steps: [StepCount] = [],
                exits: [JourneyExit] = [], duration: Histogram = Histogram()) {
        self.journey = journey
        self.cohort = cohort
        self.started = started
        self.completed = completed
        self.abandoned = abandoned
        self.failed = failed
        self.steps = steps
        self.exits = exits
        self.duration = duration
    }

    /// Journeys started but not yet ended when the results were taken.
    public var inProgress: Int64 { Swift.max(0, started - completed - abandoned - failed) }
}

/// Users that reached a step.
public struct StepCount: Sendable, Codable, Equatable {
    public var step: String
    public var reached: Int64
    public init(step: String, reached: Int64) { self.step = step; self.reached = reached }
}

/// Users that left a journey at `step` with `outcome` (abandoned or failed) and an error code.
public struct JourneyExit: Sendable, Codable, Equatable, Hashable {
    public var outcome: JourneyOutcome
    public var step: String
    public var code: String?
    public var count: Int64
    public init(outcome: JourneyOutcome, step: String, code: String?, count: Int64) {
        self.outcome = outcome
        self.step = step
        self.code = code
        self.count = count
    }
}

extension JourneyResult {
    /// The journey name under which cohort warm-ups are recorded: set-up reached through the API
    /// before a user's measured journey, kept apart from the load in totals and cards.
    public static let warmup = "warmup"

    public var isWarmup: Bool { journey == JourneyResult.warmup }
}

extension RunResults {
    /// Journeys that were the run's load (cohort warm-ups left out).
    public var measuredJourneys: [JourneyResult] { journeys.filter { !$0.isWarmup } }

    /// Cohort warm-ups, one row per cohort.
    public var warmupJourneys: [JourneyResult] { journeys.filter(\.isWarmup) }
}
