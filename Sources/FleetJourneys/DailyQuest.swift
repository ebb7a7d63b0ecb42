import FleetClient
import FleetCore

/// Flow 2, the daily quest: home → session → read → round 1 → feedback → round 2 → complete → home.
///
/// Settlement is measured twice: `settlement` from the intended start of the first
/// `POST /sessions/{id}/complete` to the settlement received (retries of that call included),
/// and `settlement_e2e` from the moment round 2 was seen assessed.
public struct DailyQuest: Journey {
    public let name = "dailyQuest"

    public init() {}

    public func walk(_ user: VirtualUser) async throws(JourneyStop) {
        try await user.launch()
        let home = try await user.openHome()
        guard let article = home.questArticleId else {
            throw .abandoned(step: "home", reason: "no_quest")
        }
        try await user.think("home")

        user.reach("create_session")
        var session = try user.expect(await user.client.createSession(
            articleId: article, kind: "daily", key: user.newKey(), user.credentials, intended: user.nextIntended, random: &user.random))
        try await user.think("read")

        user.reach("reading_complete")
        if session.stage == "reading" {
            session = try user.expect(await user.client.readingComplete(session.id, user.credentials, intended: user.nextIntended,
                                                                        random: &user.random))
        }
        _ = try await user.recordRound(session: session, round: 1)
        try await user.think("feedback")
        let round2Assessed = try await user.recordRound(session: session, round: 2)
        _ = round2Assessed
        let assessedSeen = MonotonicClock.now()
        try await user.think("complete")
        try await user.settle(session: session, since: assessedSeen)
        try await user.think("back_home")
        _ = try await user.openHome()
    }
}

extension VirtualUser {
    /// `POST /sessions/{id}/complete`, recording `settlement` and `settlement_e2e`.
    @discardableResult
    public func settle(session: SessionInfo, since assessedSeen: UInt64) async throws(JourneyStop) -> SettlementInfo {
        reach("complete")
        let intended = nextIntended
        let actual = MonotonicClock.now()
        let result = await client.complete(session: session.id, credentials, intended: intended, random: &random)
        let end = MonotonicClock.now()
        if case .failure(let e) = result, e.isAborted { throw stop(for: e) }
        let failed: Bool
        if case .failure = result { failed = true } else { failed = false }
        world.recorder.recordLatency("settlement", intended: intended, actual: actual, end: end, failed: failed)
        world.recorder.recordLatency("settlement_e2e", intended: assessedSeen, actual: assessedSeen, end: end, failed: failed)
        return try expect(result)
    }
}
