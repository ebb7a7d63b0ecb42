/// The profile keys a journey reads: its decisions (`probabilities` keys `journey.decision`)
/// and the think-time names it pauses on (`think_times` keys).
///
/// Each journey declares them (`Journey.keys`) from the building blocks below, one per shared
/// step, so that profile validation can refuse a key that nothing reads (a typo would otherwise
/// silently keep the default). `VirtualUser` notes any key a walk asks for that its journey did
/// not declare (`undeclaredKeys`), and the journey tests check that none is.
public struct JourneyKeys: Sendable, Equatable {
    public var decisions: Set<String>
    public var thinkTimes: Set<String>

    public init(decisions: Set<String> = [], thinkTimes: Set<String> = []) {
        self.decisions = decisions
        self.thinkTimes = thinkTimes
    }

    public static func + (a: JourneyKeys, b: JourneyKeys) -> JourneyKeys {
        JourneyKeys(decisions: a.decisions.union(b.decisions), thinkTimes: a.thinkTimes.union(b.thinkTimes))
    }

    // MARK: Shared steps

    /// `startSession`: a `402` leads to the expired-return paywall (`paywallAfterEntitlementRequired`).
    public static let startSession = JourneyKeys(decisions: ["subscribe"], thinkTimes: ["paywall"])
    /// A round's takes with their recoveries (`recordRoundRecovering`).
    public static let recording = JourneyKeys(thinkTimes: ["rerecord", "retry"])
    /// `playSession` from any stage to settlement, feedback screen included.
    public static let session = recording + JourneyKeys(decisions: ["fetch_evidence", "rate_feedback", "helpful"],
                                                        thinkTimes: ["read", "compress", "feedback", "complete", "complete_retry"])
    /// The tap on the mic before a take and the permission-denied screen (flow 5).
    public static let microphone = JourneyKeys(decisions: ["mic_granted", "open_settings", "grant_in_settings"],
                                               thinkTimes: ["mic_purpose", "permission_denied", "settings"])
    /// Onboarding and the diagnostic up to its record step, and its result (`onboardToDiagnosticRecord`).
    public static let diagnostic = JourneyKeys(decisions: ["other_practice_language", "allow_notifications"],
                                               thinkTimes: ["onboarding_welcome", "onboarding_step", "diag_intro", "read", "diag_result"])
    /// The hard paywall of flow 1 (`firstLaunchPaywall`) and the plan before it.
    public static let firstLaunchPaywall = JourneyKeys(decisions: ["leave_paywall", "restore", "purchase_fails"],
                                                       thinkTimes: ["plan", "plan_retry", "paywall", "purchase_failed"])
    /// Today's quest from home and back (`DailyQuest.quest`).
    public static let quest = startSession + session + JourneyKeys(thinkTimes: ["home", "back_home"])
    /// A killed quest, relaunched and resumed (`KillAndResume.killedWalk`).
    public static let killed = quest + JourneyKeys(decisions: ["abandon"], thinkTimes: ["resume_sheet"])

    // MARK: Keys outside the journeys

    /// Think-time keys read outside any journey's steps: the default pause, the length of the
    /// subscription `expiry` buys, the trial left to an at-risk cohort.
    public static let globalThinkTimes: Set<String> = ["default", "subscription_length", "cohort.at_risk_remaining"]

    /// Probability keys read by the cohort warm-up: `cohort.<name>.diagnostic`.
    public static var cohortProbabilities: Set<String> { Set(JourneyCatalog.cohorts.map { "cohort.\($0).diagnostic" }) }
}
