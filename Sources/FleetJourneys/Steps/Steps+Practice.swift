import FleetClient
import FleetCore

/// Starting a practice session (flow 2 step 2, reused by flows 1, 3, 4, 5, 6, 7 and 9); its body is `playSession`.
extension VirtualUser {
    /// `POST /sessions {article_id, kind}`; `402` routes to the expired-return paywall and, when
    /// the user subscribes there, tries once more with the same key.
    @inline(never)  // async steps are not inlined: see VirtualUser (frames)
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

    /// `playSession` where the caller needs the settlement (free practice compares XP): only a
    /// diagnostic ends without one, so a nil for a daily or free session is a failure.
    @inline(never)
    func playToSettlement(_ session: SessionInfo, micGrant: Double? = nil) async throws(JourneyStop) -> SettlementInfo {
        guard let settlement = try await playSession(session, micGrant: micGrant) else {
            throw .failed(step: step, code: "no_settlement", message: "session \(session.id) (\(session.kind)) ended without a settlement")
        }
        return settlement
    }

    /// Chance that the first tap on the mic is answered "Allow" in journeys that may be the first
    /// to ask (the permission was not settled by a diagnostic or an earlier session).
    public static let practiceMicGrant = 0.97
}
