import FleetClient
import FleetCore

/// Flow 2, the daily quest: home → session → read → round 1 → feedback → round 2 → complete → home.
///
/// Settlement is measured twice: `settlement` from the intended start of the first
/// `POST /sessions/{id}/complete` to the settlement received (retries of that call included,
/// the client's and the user's own), and `settlement_e2e` from the moment round 2 was seen
/// assessed. A replay after a relaunch is `settlement_replay`, so `settlement` keeps one sample
/// per first settlement. With the profile's `kill_rate`, a share of users is killed on the way
/// and resumes as in `killAndResume`.
public struct DailyQuest: Journey {
    public let name = JourneyName.dailyQuest.rawValue
    public var keys: JourneyKeys { .killed }  // a share is killed (`kill_rate`) and resumes

    public init() {}

    @inline(never)  // async steps are not inlined: see VirtualUser (frames)
    public func walk(_ user: VirtualUser) async throws(JourneyStop) {
        let killRate = user.world.behaviour.killRate
        if killRate > 0, user.random.chance(killRate) {
            try await KillAndResume.killedWalk(user)
            return
        }
        try await Self.quest(user)
    }

    /// The quest itself, from launch to home after settlement.
    @inline(never)
    static func quest(_ user: VirtualUser) async throws(JourneyStop) {
        try await user.launch()
        let home = try await user.openHome()
        guard let article = home.questArticleId else {
            throw .abandoned(step: "home", reason: "no_quest")
        }
        try await user.think("home")
        let session = try await user.startSession(articleId: article, kind: "daily")
        try await user.playSession(session)
        try await user.think("back_home")
        _ = try await user.openHome()
    }
}

extension VirtualUser {
    /// `POST /sessions/{id}/complete` (key = session id), recording `settlement` and
    /// `settlement_e2e`, or `settlement_replay` for a replay. A network error that outlives the
    /// client's retries is retried by the user ("Retry", same key) up to twice; a 409 (a round
    /// not assessed) throws `stage_precondition` for the caller to route by stage.
    @discardableResult
    @inline(never)
    public func settle(session: SessionInfo, since assessedSeen: UInt64, replay: Bool = false) async throws(JourneyStop) -> SettlementInfo {
        if !replay { try await killDuringComplete(session: session.id) }
        reach(replay ? "complete_replay" : "complete")
        device.pendingSettlement = session.id
        let intended = nextIntended
        let actual = MonotonicClock.now()
        var result = await client.complete(session: session.id, credentials, intended: intended, random: &random)
        var userRetries = 0
        while case let .failure(e) = result, !e.isAborted, e.status == nil || (e.status! >= 500 && e.retryable), userRetries < 2 {
            userRetries += 1
            try await think("complete_retry")
            result = await client.complete(session: session.id, credentials, intended: nextIntended, random: &random)
        }
        let end = MonotonicClock.now()
        if case .failure(let e) = result, e.isAborted { throw stop(for: e) }
        let failed: Bool
        if case .failure = result { failed = true } else { failed = false }
        if replay {
            world.recorder.recordLatency(.settlementReplay, intended: intended, actual: actual, end: end, failed: failed)
        } else {
            world.recorder.recordLatency(.settlement, intended: intended, actual: actual, end: end, failed: failed)
            world.recorder.recordLatency(.settlementE2E, intended: assessedSeen, actual: assessedSeen, end: end, failed: failed)
        }
        // A response was seen (settlement or error): nothing is left to replay after a kill.
        device.pendingSettlement = nil
        let settled = try expect(result)
        lastSettledAt = end
        await lateDuplicate(after: session.id)
        return settled
    }
}
