import FleetClient
import FleetCore

/// A practice session from start to settlement (flow 2 steps 2–7, reused by flows 1, 3, 5 and 9).
extension VirtualUser {
    /// `POST /sessions {article_id, kind}`; `402` routes to the expired-return paywall and, when
    /// the user subscribes there, tries once more with the same key.
    public func startSession(articleId: String, kind: String) async throws(JourneyStop) -> SessionInfo {
        reach("create_session")
        let key = newKey()
        let first = await client.createSession(articleId: articleId, kind: kind, key: key, credentials,
                                               intended: nextIntended, random: &random)
        if case let .failure(e) = first, e.status == 402 {
            try await paywallAfterEntitlementRequired()
            reach("create_session")
            return try expect(await client.createSession(articleId: articleId, kind: kind, key: key, credentials,
                                                         intended: nextIntended, random: &random))
        }
        return try expect(first)
    }

    /// Read → round 1 → feedback → round 2 → complete, entered at the session's `stage` (a 200
    /// from `POST /sessions` may hand back one already in progress). Returns the settlement.
    @discardableResult
    public func practise(_ start: SessionInfo, micGrantDefault: Double = 0.97) async throws(JourneyStop) -> SettlementInfo {
        var session = start
        if session.stage == "reading" {
            try await think("read")
            reach("reading_complete")
            session = try expect(await client.readingComplete(session.id, credentials, intended: nextIntended, random: &random))
        }
        for round in 1...2 {
            if try await roundDone(session, round: round) { continue }
            if round == 2 { try await think("feedback") }
            _ = try await recordWithPermission(session: session, round: round, grantDefault: micGrantDefault)
        }
        let assessedSeen = MonotonicClock.now()
        try await think("complete")
        return try await settle(session: session, since: assessedSeen)
    }

    /// Whether round `round` of `session` already has an assessed attempt; one still processing
    /// is polled (the processing screen), one that ended otherwise is recorded again.
    private func roundDone(_ session: SessionInfo, round: Int) async throws(JourneyStop) -> Bool {
        let stages = ["reading": 0, "round1": 1, "round1_processing": 1, "round2": 2, "round2_processing": 2, "completed": 3]
        let at = stages[session.stage] ?? 0
        if at < round { return false }
        if at > round { return true }
        guard session.stage.hasSuffix("_processing"), let id = session.roundAttempts[round] else { return false }
        let current = try expect(await client.attempt(id, credentials, intended: nextIntended, random: &random))
        let seen = current.isTerminal ? current : try await poll(attempt: current, round: round)
        return seen.status == "assessed"
    }
}
