/// The data half of the journeys: branch probabilities and pauses, from the profile, with defaults.
///
/// Steps are code; which branch a user takes and how long it waits are data. Keys are
/// `journey.decision` (`"dailyQuest.fetch_evidence"`) for probabilities and step names
/// (`"read"`, `"feedback"`) for think times; an absent key falls back to the default given at the
/// call site, so a profile only says what it changes.
public struct Behaviour: Sendable {
    public var thinkTimes: [String: ThinkTime]
    public var defaultThinkTime: ThinkTime
    public var probabilities: [String: Double]
    /// Multiplies every pause and recording length (0.1 = ten times faster than life).
    public var timeScale: Double
    /// Share of each clip class in uploads (`["speech": 0.98, "silence": 0.02]`).
    public var clipMix: [String: Double]
    /// How many times a user re-records after `unreliable` before giving up on the round.
    public var maxReRecords: Int
    /// Share of daily-quest users whose app is killed at a random step and relaunched (flow 4);
    /// the `killAndResume` journey is always killed. Profile: `network.kill_rate`.
    public var killRate = 0.0
    /// Share of uploads cut mid-PUT by a lost network (flow 6), in every recording loop; the
    /// `offlineUpload` journey always cuts one. Profile: `network.offline_rate`.
    public var offlineRate = 0.0
    /// How long the network stays lost after a cut upload (wall time, not scaled: it is the
    /// network's, and presigned URLs expire in wall time). Profile: `network.offline`.
    public var offlineDuration: ThinkTime = .uniform(minMs: 2_000, maxMs: 10_000)
    /// Pause between an app kill and the relaunch (scaled like a think time). Profile: `network.relaunch`.
    public var relaunchDelay: ThinkTime = .uniform(minMs: 1_000, maxMs: 5_000)

    public init(thinkTimes: [String: ThinkTime] = [:], defaultThinkTime: ThinkTime = .uniform(minMs: 1_000, maxMs: 3_000),
                probabilities: [String: Double] = [:], timeScale: Double = 1.0, clipMix: [String: Double] = ["speech": 1.0],
                maxReRecords: Int = 2) {
        self.thinkTimes = thinkTimes
        self.defaultThinkTime = defaultThinkTime
        self.probabilities = probabilities
        self.timeScale = timeScale
        self.clipMix = clipMix
        self.maxReRecords = maxReRecords
    }

    public func thinkTime(_ step: String) -> ThinkTime { thinkTimes[step] ?? defaultThinkTime }

    public func probability(_ key: String, default p: Double) -> Double { probabilities[key] ?? p }

    /// Length of the short subscription the `expiry` journey buys so that it lapses inside the run
    /// (wall time, not scaled: the stack's clock decides). Profile: `think_times.subscription_length`.
    public var subscriptionLength: ThinkTime { thinkTimes["subscription_length"] ?? .uniform(minMs: 3_000, maxMs: 8_000) }
}
