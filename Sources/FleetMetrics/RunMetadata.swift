/// Who ran what, when and against what; the header of every report and history row.
public struct RunMetadata: Sendable, Codable, Equatable {
    public var runId: String
    public var profile: String
    public var seed: UInt64
    /// The base URL the fleet talked to (`embedded` stacks give their loopback URL).
    public var target: String
    /// Wall-clock start, RFC 3339 (`2026-11-29T15:00:00Z`).
    public var startedAt: String
    public var plannedDurationSeconds: Double
    public var actualDurationSeconds: Double
    /// `git rev-parse --short HEAD` of the bench, or "unknown".
    public var gitRevision: String
    /// Every threshold of the profile with its verdict (empty when the profile has none).
    public var thresholds: [ThresholdVerdict]
    /// Things the reader must know, loudest first ("generator fell behind: …", "interrupted").
    public var notes: [String]
    /// How many shard results were merged into this one (1 for a single process).
    public var shards: Int
    /// The profile's bound on scheduling-lag p99 (µs) above which the generator fell behind;
    /// nil means the default of `generatorBehindReasons` (50 ms). Kept so that a re-rendered
    /// report judges the run by the same bound the run itself used.
    public var lagBoundMicros: Int64?
    /// Set on a shard's own results (`fleet run --shard i/N`); nil for a single process.
    public var shard: ShardInfo?
    /// Set on merged results (`fleet merge`): each shard's generator, in shard order.
    public var shardRuns: [ShardSummary]?
    /// SHA-256 (hex) of the load the profile describes (everything but its description and the
    /// embedded stack's settings, with the run's seed and duration): two runs compare like for
    /// like only when these are equal. nil in runs recorded before it existed.
    public var profileHash: String?
    /// The profile's `regression.min_effect`: the smallest relative change a comparison calls
    /// worse or better (nil: the default, 5 %).
    public var minEffect: Double?
    /// The profile's `regression.min_abs_ms`: the smallest absolute latency change that counts (nil: 10 ms).
    public var minAbsoluteMs: Double?
    /// The bench process's CPU seconds (user + system) when the users began to walk: start-up's
    /// share (corpus check, stack, connections) of the health samples' cumulative `cpuSeconds`,
    /// for a CPU figure over the run's windows to leave out. Without it, a run whose first window
    /// already has users active had no sample to subtract. nil in merged results (each shard has
    /// its own) and in runs recorded before it existed.
    public var startCpuSeconds: Double?

    public init(runId: String, profile: String, seed: UInt64, target: String, startedAt: String,
                plannedDurationSeconds: Double = 0, actualDurationSeconds: Double = 0,
                gitRevision: String = "unknown", thresholds: [ThresholdVerdict] = [],
                notes: [String] = [], shards: Int = 1, lagBoundMicros: Int64? = nil,
                profileHash: String? = nil, minEffect: Double? = nil, minAbsoluteMs: Double? = nil) {
        self.runId = runId
        self.profile = profile
        self.seed = seed
        self.target = target
        self.startedAt = startedAt
        self.plannedDurationSeconds = plannedDurationSeconds
        self.actualDurationSeconds = actualDurationSeconds
        self.gitRevision = gitRevision
        self.thresholds = thresholds
        self.notes = notes
        self.shards = shards
        self.lagBoundMicros = lagBoundMicros
        self.profileHash = profileHash
        self.minEffect = minEffect
        self.minAbsoluteMs = minAbsoluteMs
    }

    /// True when no threshold failed (a run without thresholds passes).
    public var passed: Bool { thresholds.allSatisfy(\.passed) }
}

/// One threshold of the profile and what the run made of it.
public struct ThresholdVerdict: Sendable, Codable, Equatable {
    /// The metric it applies to (`assessment_turnaround`, `http_errors`, `http:GET /home`, …).
    public var metric: String
    /// As written in the profile: `p99 < 8000`.
    public var expression: String
    public var passed: Bool
    /// The measured figure in the expression's unit (ms for percentiles, a fraction for rates).
    public var observed: Double
    public var limit: Double
    /// One line for people: "assessment_turnaround p99 < 8000: 9120.5 ms, over by 1120.5 ms (14.0 %)".
    public var message: String

    public init(metric: String, expression: String, passed: Bool, observed: Double, limit: Double, message: String) {
        self.metric = metric
        self.expression = expression
        self.passed = passed
        self.observed = observed
        self.limit = limit
        self.message = message
    }
}
