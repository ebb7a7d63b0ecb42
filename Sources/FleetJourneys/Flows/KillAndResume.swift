import FleetClient
import FleetCore

/// Flow 4, resume after the app was killed: a daily quest dies at a random step; after the
/// relaunch delay the upload queue drains, home offers `resume_session`, and the user either
/// continues it (routed by `stage`, down to a replayed settlement) or abandons it.
public struct KillAndResume: Journey {
    public let name = JourneyName.killAndResume.rawValue
    public var keys: JourneyKeys { .killed }
    /// The step the app dies in; nil draws one per user from `killSteps`.
    public let killStep: String?
    /// The kill lands uniformly within this many ms after the step is reached (0: at once, so
    /// inside the step's first request).
    public let killWindowMs: Double

    /// Steps of the quest where a kill is interesting: between requests, inside uploads, while
    /// polling, while settling. The kill lands up to `killWindowMs` after the step is reached.
    public static let killSteps = ["create_session", "reading_complete", "round1_record", "round1_upload", "round1_submit",
                                   "round1_processing", "feedback", "round2_record", "round2_upload", "round2_submit",
                                   "round2_processing", "complete"]
    public static let defaultKillWindowMs = 150.0

    public init(killStep: String? = nil, killWindowMs: Double = KillAndResume.defaultKillWindowMs) {
        self.killStep = killStep
        self.killWindowMs = killWindowMs
    }

    @inline(never)  // async steps are not inlined: see VirtualUser (frames)
    public func walk(_ user: VirtualUser) async throws(JourneyStop) {
        try await Self.killedWalk(user, at: killStep, withinMs: killWindowMs)
    }

    /// The quest with a kill armed at `step` (or a random one), then the relaunch and resume.
    static func killedWalk(_ user: VirtualUser, at step: String? = nil,
                           withinMs window: Double = defaultKillWindowMs) async throws(JourneyStop) {
        let chosen = step ?? killSteps[min(killSteps.count - 1, Int(user.random.unit() * Double(killSteps.count)))]
        let killed = try await user.runKillable(killAt: chosen, withinMs: window) { u throws(JourneyStop) in
            try await DailyQuest.quest(u)
        }
        guard killed else { return }
        if try await user.relaunch() != nil {
            try await user.think("back_home")
            _ = try await user.openHome()
            return
        }
        let home = try await user.openHome()
        guard let resumeId = home.resumeSessionId else {
            // Nothing to resume: the kill came before the session existed (or after it ended).
            // Home is normal again and the user starts today's quest as they meant to.
            guard home.questStatus != "completed", let article = home.questArticleId else { return }
            try await user.think("home")
            try await user.playSession(try await user.startSession(articleId: article, kind: "daily"))
            try await user.think("back_home")
            _ = try await user.openHome()
            return
        }
        user.reach("resume_sheet")
        try await user.think("resume_sheet")
        if user.decide("abandon", default: 0.2) {
            user.reach("abandon")
            _ = try user.expect(await user.client.abandon(session: resumeId, user.credentials, intended: user.nextIntended,
                                                          random: &user.random))
            _ = try await user.openHome()
            throw .abandoned(step: "resume_sheet", reason: "abandoned_session")
        }
        user.reach("resume_session")
        let fetched = await user.client.session(resumeId, user.credentials, intended: user.nextIntended, random: &user.random)
        // Flow 4 step 2: a session that is gone is dropped silently.
        if case let .failure(e) = fetched, e.status == 404 { _ = try await user.openHome(); return }
        let session = try user.expect(fetched)
        try await user.playSession(session)
        try await user.think("back_home")
        _ = try await user.openHome()
    }
}
