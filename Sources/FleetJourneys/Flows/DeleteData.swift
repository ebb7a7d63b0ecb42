import FleetClient
import FleetCore

/// Flow 8: delete training data, the account, or one session — and check that it happened.
///
/// - training data: `DELETE /me/training-data` → 202; growth must read empty and home first-time
///   like (streak 0, nothing to resume), `GET /me` stats zero (API.md invariant 7);
/// - account: `DELETE /me` → 204, sign-out, then `POST /auth/anonymous` with a NEW install id,
///   which must be a new, not-onboarded user (back to onboarding welcome);
/// - one session: swipe a row of growth's recent list → `DELETE /sessions/{id}` → 204; the row is
///   gone from `GET /growth` and stats are refetched.
/// A check that does not hold ends the journey `failed(deletion_incomplete)`.
public struct DeleteData: Journey {
    public let name = JourneyName.deleteData.rawValue
    public var keys: JourneyKeys {
        JourneyKeys(decisions: ["delete_session", "delete_account", "cancel"], thinkTimes: ["settings", "confirm", "growth"])
    }

    public init() {}

    @inline(never)  // async steps are not inlined: see VirtualUser (frames)
    public func walk(_ user: VirtualUser) async throws(JourneyStop) {
        try await user.launch()
        user.reach("settings")
        _ = try await user.fetchMe()
        try await user.think("settings")
        if user.decide("delete_session", default: 0.35) {
            try await deleteOneSession(user)
        } else if user.decide("delete_account", default: 0.25) {
            try await deleteAccount(user)
        } else {
            try await deleteTrainingData(user)
        }
    }

    @inline(never)
    private func confirm(_ user: VirtualUser, _ screen: String) async throws(JourneyStop) {
        user.reach(screen)
        try await user.think("confirm")
        if user.decide("cancel", default: 0.05) { throw .abandoned(step: screen, reason: "cancelled") }
    }

    @inline(never)
    private func deleteTrainingData(_ user: VirtualUser) async throws(JourneyStop) {
        try await confirm(user, "delete_data_confirm")
        _ = try user.expect(await user.client.deleteTrainingData(user.credentials, intended: user.nextIntended, random: &user.random))
        user.reach("data_deleted")
        await user.readAfterDelete()
        // Caches cleared: everything is fetched again.
        let growth = try user.expect(await user.client.growth(user.credentials, intended: user.nextIntended, random: &user.random))
        guard growth.isEmpty else {
            throw incomplete("growth still lists \(growth.recentSessionIds.count) sessions in \(growth.weeks) weeks")
        }
        let home = try await user.openHome()
        guard home.streak == 0, home.resumeSessionId == nil else {
            throw incomplete("home after deletion: streak \(home.streak), resume \(home.resumeSessionId ?? "none")")
        }
        let me = try await user.fetchMe()
        guard me.streak == 0, me.sessionsCompleted == 0, me.xp == 0 else {
            throw incomplete("stats after deletion: xp \(me.xp), streak \(me.streak), sessions \(me.sessionsCompleted)")
        }
    }

    @inline(never)
    private func deleteAccount(_ user: VirtualUser) async throws(JourneyStop) {
        try await confirm(user, "delete_account_confirm")
        let oldUser = user.credentials.userId
        _ = try user.expect(await user.client.deleteAccount(user.credentials, intended: user.nextIntended, random: &user.random))
        user.credentials.signOut()
        user.credentials.installId = "inst-" + user.newKey()
        user.reach("new_install")
        try await user.launch()
        let me = try await user.fetchMe()
        guard me.userId != oldUser, !me.isOnboarded else {
            throw incomplete("sign-in with a new install id gave user \(me.userId), onboarding \(me.onboardingStatus)")
        }
        user.reach("onboarding_welcome")
    }

    @inline(never)
    private func deleteOneSession(_ user: VirtualUser) async throws(JourneyStop) {
        user.reach("growth")
        let before = try user.expect(await user.client.growth(user.credentials, intended: user.nextIntended, random: &user.random))
        guard !before.recentSessionIds.isEmpty else { throw .abandoned(step: "growth", reason: "nothing_to_delete") }
        try await user.think("growth")
        let id = before.recentSessionIds[Int(user.random.next() % UInt64(before.recentSessionIds.count))]
        let statsBefore = try await user.fetchMe()
        user.reach("delete_session")
        _ = try user.expect(await user.client.deleteSession(id, user.credentials, intended: user.nextIntended, random: &user.random))
        let after = try user.expect(await user.client.growth(user.credentials, intended: user.nextIntended, random: &user.random))
        guard !after.recentSessionIds.contains(id) else { throw incomplete("growth still lists deleted session \(id)") }
        // API.md: deleting one session keeps XP, streak and counts.
        let stats = try await user.fetchMe()
        guard stats.xp == statsBefore.xp else { throw incomplete("xp went from \(statsBefore.xp) to \(stats.xp) on deleting one session") }
    }

    private func incomplete(_ why: String) -> JourneyStop {
        .failed(step: "verify", code: "deletion_incomplete", message: why)
    }
}
