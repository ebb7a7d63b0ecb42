import FleetCore
import FleetJourneys
import FleetReport

/// Everything `fleet run` was asked to do, after parsing flags and the profile.
public struct RunOptions: Sendable {
    public var profile: Profile
    /// `--target`, overriding the profile's target; nil and no profile target → embedded stack.
    public var target: String?
    /// Reports land in `<outDir>/<run-id>/`.
    public var outDir = "reports"
    /// Run history database, relative to where the bench runs (`--history`).
    public var historyPath = HistoryStore.defaultPath
    /// Results of an earlier run to compare with (`--baseline FILE`), or `latest`: the newest run
    /// of the same profile in the history.
    public var baselinePath: String?
    /// Compare with a baseline of another profile hash or target (`--force`).
    public var forceCompare = false
    /// Where to write the JUnit XML of thresholds and comparison verdicts (`--junit FILE`).
    public var junitPath: String?
    /// `--metrics-listen 127.0.0.1:PORT`: serve live Prometheus metrics during the run.
    public var metricsListen: String?
    /// Non-loopback targets are refused unless this is set (`--allow-remote`).
    public var allowRemote = false
    /// Seconds between progress lines (1 on a terminal, 5 otherwise).
    public var progressEveryS = 5.0
    /// Seconds given to a target to answer its first request before the run gives up.
    public var reachTimeoutS = 5.0
    /// The users this process runs (`--shard i/N`).
    public var shard: Shard = .whole
    /// SHA-256 of the profile as run, so that `fleet merge` can tell shards of different profiles apart.
    public var profileDigest = ""
    /// Start barrier (`--start-at`), milliseconds since the epoch.
    public var startAtMillis: Int64?
    /// Local address every connection is bound to (`--source-address`).
    public var sourceAddress: String?

    /// The profile as run (overrides applied), written into the run folder (`profile.json`) so that `fleet replay` can rerun a user.
    public var profileJSON: JSONValue?

    public init(profile: Profile) { self.profile = profile }

    public var effectiveTarget: String? { target ?? profile.target }
}

/// What a finished run produced.
public struct RunOutcome: Sendable {
    public var reportDir: String
    public var indexPath: String
    public var exitCode: Int32
    public var summaryLines: [String]
}

