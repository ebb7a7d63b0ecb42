import FleetClient
import FleetCheck
import FleetCore
import FleetJourneys

/// A run's whole description, read from a JSON file in `profiles/` (schema: profiles/README.md).
public struct Profile: Sendable {
    public var name: String
    public var description: String
    public var seed: UInt64
    /// Hard bound on the run, in seconds: arrivals stop and in-flight users get `graceS` more.
    public var durationS: Double
    public var graceS: Double
    /// Base URL of the stack under test; nil runs against the embedded reference stack.
    public var target: String?
    /// Settings handed to the embedded stack as its JSON config (ignored with a target).
    public var stack: JSONValue?
    public var client: ClientProfile
    public var corpusDir: String
    public var behaviour: Behaviour
    public var network: NetworkConditions
    public var scenarios: [Scenario]
    /// `metric → ["p99 < 8000", …]`, evaluated at the end of the run.
    public var thresholds: [String: [String]]
    /// Lag p99 (ms) above which the run says the generator fell behind.
    public var maxLagMs: Double
    /// Width of a metrics window, in seconds.
    public var windowS: Double
    /// Faults injected into the bench itself, to show that its numbers expose them (accuracy runs).
    public var debug: DebugHooks? = nil
    /// Invariant checking (on by default): trace ring, audit bounds, clock-skew tolerance.
    public var checks = CheckSettings()
    /// `regression.min_effect`: the smallest relative change a baseline comparison calls worse (0.05).
    public var minEffect = 0.05
    /// `regression.min_abs_ms`: the smallest absolute latency change a comparison calls worse (10 ms).
    public var minAbsoluteMs = 10.0
    /// The profile's load-defining JSON (sorted keys, see `unhashed`), the basis of `hash`.
    public var hashBasis = ""

    /// SHA-256 (hex) of the load this run sends: the profile's JSON without its description, stack
    /// settings and target, plus the seed and duration in force. Equal hashes, like-for-like runs.
    public var hash: String {
        SHA256.hex(Array("\(hashBasis)|seed=\(seed)|duration_s=\(durationS)".utf8))
    }
    /// Daily active users and when they come (`population`), and how `fleet capacity` searches (`capacity`).
    public var population: PopulationSpec? = nil
    public var capacity: CapacitySettings? = nil
}

/// `"debug": {"stall_at_s": 5, "stall_s": 1}`: at `stall_at_s` into the run, every thread of the
/// users' pool is blocked for `stall_s`, as a generator starved of CPU would be. Requests and
/// arrivals due meanwhile go out late; a correct bench shows the stall in the corrected
/// latencies and in `scheduling_lag` instead of hiding it. Never set in a real run: the run's
/// notes say the stall was deliberate.
public struct DebugHooks: Sendable, Equatable {
    public var stallAtS: Double
    public var stallS: Double
}

public struct ClientProfile: Sendable {
    /// The API client's settings for a stack at `baseURL`.
    public func settings(baseURL: String) -> ClientSettings {
        var c = ClientSettings(baseURL: baseURL)
        c.appVersion = appVersion
        c.sandboxKey = sandboxKey
        c.requestTimeout = requestTimeoutS
        c.maxRetries = maxRetries
        c.patienceS = patienceS
        c.uploadTimeout = uploadTimeoutS
        return c
    }

    public var appVersion = "1.4.0"
    public var sandboxKey = "sandbox-secret"
    public var requestTimeoutS = 30.0
    public var maxRetries = 3
    /// Seconds a user waits for one call, repeats included, before giving up on it.
    public var patienceS = 60.0
    /// Whole-transfer timeout of an audio upload.
    public var uploadTimeoutS = 120.0
    public var connections = 0
}

/// Injected network trouble (flows 4 and 6).
public struct NetworkConditions: Sendable {
    public var killRate = 0.0
    public var offlineRate = 0.0
    public var offline: ThinkTime = .uniform(minMs: 2_000, maxMs: 10_000)
    public var relaunch: ThinkTime = .uniform(minMs: 1_000, maxMs: 5_000)
}

/// One population of users with its own load model, journey mix and start time.
public struct Scenario: Sendable {
    public var name: String
    public var startS: Double
    public var model: WorkloadModelConfig
    public var journeys: [JourneyName: Double]
    public var cohorts: [String: Double]
    /// Race amplifiers (bug hunting); all off unless the profile sets them.
    public var amplifiers = Amplifiers()
    /// Arrivals drawn from this population (traits, cohort, journey by cohort) instead of
    /// `journeys`/`cohorts`: how `fleet capacity` offers a population's visit mix at a constant
    /// rate. Each arrival is a new user of the population. Not read from profile files.
    public var visitors: PopulationSpec?
}
