import FleetClient
import FleetCore

/// Flow 1: first launch → onboarding → diagnostic → plan → paywall → home first-time.
///
/// Install id from the device (made on the very first launch), sign-in, config with the
/// force-update gate, `GET /me`; an install that is already onboarded goes straight home
/// (session restoration). Otherwise the six answers, `POST /onboarding`, the diagnostic (read,
/// mic prompt — a denial is flow 5 —, one round with its recoveries), the plan polled while the
/// plan job runs, the hard paywall, and home first-time; some users start today's session.
public struct FirstLaunch: Journey {
    public let name = JourneyName.firstLaunch.rawValue
    public var keys: JourneyKeys {
        .diagnostic + .microphone + .recording + .firstLaunchPaywall + .quest + JourneyKeys(decisions: ["start_first_session"])
    }

    public init() {}

    @inline(never)  // async steps are not inlined: see VirtualUser (frames)
    public func walk(_ user: VirtualUser) async throws(JourneyStop) {
        user.reach("install")
        if user.credentials.installId.isEmpty { user.credentials.installId = "inst-" + user.newKey() }
        try await user.launch()
        let me = try await user.fetchMe()
        guard !me.isOnboarded else {
            // A returning install (cohorts other than `new`): session restoration, then home.
            _ = try await user.openHome()
            return
        }
        let session = try await user.onboardToDiagnosticRecord()
        _ = try await user.recordWithPermission(session: session, round: 1, grantDefault: 0.9)
        user.reach("diag_result")
        try await user.think("diag_result")

        try await user.waitForPlan()
        try await user.think("plan")
        _ = try await user.firstLaunchPaywall()

        user.reach("home_first_time")
        let home = try user.expect(await user.client.home(user.credentials, intended: user.nextIntended, random: &user.random))
        guard let quest = home.questArticleId else { throw .failed(step: "home_first_time", code: "no_quest", message: "home has no quest") }
        if user.decide("start_first_session", default: 0.3) {
            try await user.think("home")
            try await user.playSession(try await user.startSession(articleId: quest, kind: "daily"),
                                        micGrant: VirtualUser.practiceMicGrant)
            _ = try await user.openHome()
        }
    }
}

extension VirtualUser {
    /// Flow 1 steps 3–12: the onboarding answers and `POST /onboarding`, the diagnostic's intro
    /// and article, `reading-complete`; returns the diagnostic at its record step, where a new
    /// user first meets the microphone.
    @inline(never)
    func onboardToDiagnosticRecord() async throws(JourneyStop) -> SessionInfo {
        let onboarding = try await onboard()
        reach("diag_intro")
        try await think("diag_intro")
        var session = onboarding.session
        reach("diag_read")
        try await think("read")
        if session.stage == "reading" {
            session = try expect(await client.readingComplete(session.id, credentials, intended: nextIntended, random: &random))
        }
        return session
    }

    /// `GET /plan` while the plan job runs: `404 plan_not_ready` → spinner, polled 3× at the
    /// config's initial poll interval, then the Retry button (up to 3 taps) before giving up.
    @inline(never)
    public func waitForPlan() async throws(JourneyStop) {
        reach("plan")
        for tap in 0..<3 {
            if tap > 0 {
                reach("plan_retry")
                try await think("plan_retry")
            }
            for poll in 0..<3 {
                let r = await client.plan(credentials, intended: nextIntended, random: &random)
                switch r {
                case .success:
                    nextIntended = MonotonicClock.now()
                    return
                case let .failure(e) where e.status == 404 && !e.isAborted:
                    nextIntended = MonotonicClock.now()
                    if poll < 2 { try await pause(ms: device.poll.initialMs) }
                case let .failure(e):
                    throw stop(for: e)
                }
            }
        }
        throw .abandoned(step: step, reason: "plan_not_ready")
    }
}
