import FleetCore

/// The resume sheet's calls (flow 4): leave a session for good.
extension APIClient {
    /// `POST /sessions/{id}/abandon` → the session, now `abandoned`.
    public func abandon(session: String, _ c: Credentials, intended: UInt64, random: inout SeededRandom) async -> Result<SessionInfo, APIError> {
        await call("POST /sessions/{id}/abandon", path: "/sessions/\(session)/abandon", credentials: c, intended: intended,
                   random: &random).flatMap { r in
            SessionInfo(r.body).map(Result.success)
                ?? .failure(.badResponse("POST /sessions/{id}/abandon: response lacks id or stage", status: r.status))
        }
    }
}
