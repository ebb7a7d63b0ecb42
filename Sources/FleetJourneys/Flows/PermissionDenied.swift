import FleetClient
import FleetCore

/// Flow 5: microphone permission denied.
///
/// It starts where the user first meets the microphone. A user not yet onboarded (the `new`
/// cohort) is onboarded first and meets it at the diagnostic's record step (flow 1 steps 9–13);
/// an onboarded user meets it on today's daily session, read first (an unentitled one is sent
/// to the paywall by the `402`, flow 7). The first tap on the mic is denied (or was denied
/// earlier). While denied, no attempt is ever created. The user opens Settings — and may grant
/// there, after which recording goes on normally: the diagnostic to its result, the daily
/// session to its settlement — or goes back to the article (`abandoned(mic_denied)`).
public struct PermissionDenied: Journey {
    public let name = JourneyName.permissionDenied.rawValue
    public var keys: JourneyKeys { .diagnostic + .microphone + .recording + .quest }

    public init() {}

    @inline(never)  // async steps are not inlined: see VirtualUser (frames)
    public func walk(_ user: VirtualUser) async throws(JourneyStop) {
        try await user.launch()
        if try await !user.fetchMe().isOnboarded {
            let diagnostic = try await user.onboardToDiagnosticRecord()
            try await Self.denied(user)
            _ = try await user.recordRoundRecovering(session: diagnostic, round: 1)
            user.reach("diag_result")
            try await user.think("diag_result")
            return
        }
        let home = try await user.openHome()
        guard let quest = home.questArticleId else { throw .abandoned(step: "home", reason: "no_quest") }
        try await user.think("home")
        var session = try await user.startSession(articleId: quest, kind: "daily")
        if session.stage == "reading" {
            try await user.think("read")
            user.reach("reading_complete")
            session = try user.expect(await user.client.readingComplete(session.id, user.credentials,
                                                                         intended: user.nextIntended, random: &user.random))
        }
        try await Self.denied(user)
        try await user.playSession(session, micGrant: VirtualUser.practiceMicGrant)
        _ = try await user.openHome()
    }

    /// The tap on the mic answered "Don't Allow" (now, or earlier and remembered, or revoked in
    /// Settings: the same screen either way), then the permission-denied screen; returns once
    /// the user granted in Settings, throws `abandoned(mic_denied)` when the user goes back.
    @inline(never)
    static func denied(_ user: VirtualUser) async throws(JourneyStop) {
        if try await user.tapMicrophone(grant: false) { user.device.micPermission = .denied }
        _ = try await user.permissionDeniedScreen()
    }
}
