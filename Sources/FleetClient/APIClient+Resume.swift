import FleetCore

/// The resume sheet's calls (flow 4): leave a session for good.
extension APIClient {
    /// `POST /sessions/{id}/abandon` → the session, now `abandoned`.
    public func abandon(session: String, _ c: Credentials, intended: UInt64, random: inout SeededRandom) async -> Result<SessionInfo, APIError> {
        await typedCall(.abandonSession, path: CallPath("/sessions/", session, "/abandon"), c, intended, &random, SessionInfo.init)
    }
}
