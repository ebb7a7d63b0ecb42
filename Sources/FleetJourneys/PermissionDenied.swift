import FleetClient
import FleetCore

/// Flow 5: microphone permission denied.
///
/// Today's session is started and read; the first tap on the mic is denied (or was denied
/// earlier). While denied, no attempt is ever created. The user opens Settings — and may grant
/// there, after which recording goes on normally to the settlement — or goes back to the article
/// (`abandoned(mic_denied)`).
public struct PermissionDenied: Journey {
    public let name = "permissionDenied"

    public init() {}

    public func walk(_ user: VirtualUser) async throws(JourneyStop) {
        try await user.launch()
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
        // Denied now (first prompt) or earlier (revoked in Settings): the same screen either way.
        if try await user.tapMicrophone(grant: false) { user.device.micPermission = .denied }
        _ = try await user.permissionDeniedScreen()
        try await user.playSession(session, micGrant: VirtualUser.practiceMicGrant)
        _ = try await user.openHome()
    }
}
