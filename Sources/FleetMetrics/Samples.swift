import FleetCore

/// libcurl's timing breakdown of one request (FleetCore's `TransferTimings`, the engine's type too).
public typealias RequestBreakdown = TransferTimings

/// How a journey ended.
public enum JourneyOutcome: String, Sendable, Codable, CaseIterable {
    /// It reached its last step.
    case completed
    /// The user chose to leave (a modelled branch: closed the paywall, stayed expired, …).
    case abandoned
    /// Something went wrong: an unexpected response, a transport error, a broken invariant.
    case failed
}

/// The generator's own health in one window: how loaded the bench was while it measured.
public struct HealthSample: Sendable, Codable, Equatable {
    /// The window (0 = the first `windowNanos` of the run) the sample belongs to.
    public var window: Int
    public var activeUsers: Int
    public var inFlight: Int
    /// CPU time the bench process has used since it started (user + system), cumulative.
    public var cpuSeconds: Double
    /// Resident memory of the bench process.
    public var rssBytes: Int64
    /// CPU time the hypervisor gave to other guests since the run started, all of the machine's
    /// cores, cumulative (`ProcessStats.hostStealSeconds`); nil where the system does not say
    /// (and in results written before it was recorded).
    public var hostStealSeconds: Double?

    public init(window: Int, activeUsers: Int, inFlight: Int, cpuSeconds: Double, rssBytes: Int64,
                hostStealSeconds: Double? = nil) {
        self.window = window
        self.activeUsers = activeUsers
        self.inFlight = inFlight
        self.cpuSeconds = cpuSeconds
        self.rssBytes = rssBytes
        self.hostStealSeconds = hostStealSeconds
    }
}

/// Running totals cheap enough to read every second for a progress line.
public struct LiveTotals: Sendable, Equatable {
    /// Nanoseconds since the recorder's start.
    public var elapsedNanos: UInt64
    public var requests: Int64
    /// Requests that got no response or a status >= 400.
    public var errors: Int64
    public var turnaroundCount: Int64
    /// p99 of the corrected `assessment_turnaround` so far, microseconds (0 before the first sample).
    public var turnaroundP99Micros: Int64
    public var journeysStarted: Int64
    public var journeysCompleted: Int64
    public var journeysFailed: Int64
}

/// A run's totals so far, for a live metrics endpoint (`Recorder.liveView()`).
public struct LiveView: Sendable {
    public var elapsedNanos: UInt64
    /// Corrected whole-run histogram per journey metric (µs), by name.
    public var metrics: [(name: String, histogram: Histogram)]
    /// Requests per endpoint and status ("200", "transport").
    public var requests: [(endpoint: String, status: String, count: Int64)]
    public var journeys: [(journey: String, cohort: String, started: Int64, completed: Int64, abandoned: Int64, failed: Int64)]
    public var counters: [(name: String, value: Int64)]
}
