import FleetCore

/// Typed calls of API.md used by the journeys. Each returns the parsed object or an `APIError`;
/// the raw JSON stays available through `call` for anything else.
extension APIClient {
    /// `POST /auth/anonymous`; stores the tokens in `c`.
    public func signIn(_ c: Credentials, intended: UInt64, random: inout SeededRandom) async -> Result<String, APIError> {
        // Bodies' keys are written in key order: the serialiser then sends them as they are.
        let body: JSONValue = ["app_version": .string(c.appVersion ?? settings.appVersion), "install_id": .string(c.installId),
                               "locale": .string(c.locale), "platform": .string(settings.platform), "timezone": .string(c.timezone)]
        let r = await perform(.authAnonymous, path: "/auth/anonymous", body: body, key: nil, credentials: nil,
                              intended: intended, random: &random) { resp -> (String, String, String?)? in
            guard let uid = resp.body["user_id"]?.string, let at = resp.body["access_token"]?.string else { return nil }
            return (uid, at, resp.body["refresh_token"]?.string)
        }
        return r.map { uid, at, rt in
            c.userId = uid
            c.accessToken = at
            c.refreshToken = rt
            return uid
        }
    }

    public func createSession(articleId: String, kind: String, key: String, _ c: Credentials, intended: UInt64,
                              random: inout SeededRandom) async -> Result<SessionInfo, APIError> {
        await typedCall(.createSession, path: "/sessions", body: ["article_id": .string(articleId), "kind": .string(kind)],
                        key: key, c, intended, &random, SessionInfo.init)
    }

    public func session(_ id: String, _ c: Credentials, intended: UInt64, random: inout SeededRandom) async -> Result<SessionInfo, APIError> {
        await typedCall(.getSession, path: CallPath("/sessions/", id), c, intended, &random, SessionInfo.init)
    }

    public func readingComplete(_ id: String, _ c: Credentials, intended: UInt64, random: inout SeededRandom) async -> Result<SessionInfo, APIError> {
        await typedCall(.readingComplete, path: CallPath("/sessions/", id, "/reading-complete"),
                        c, intended, &random, SessionInfo.init)
    }

    /// `POST /sessions/{id}/attempts`: declares the recording and returns where to upload it.
    public func createAttempt(session: String, round: Int, sha256: String, sizeBytes: Int, contentType: String, durationMs: Int,
                              key: String, _ c: Credentials, intended: UInt64, random: inout SeededRandom) async -> Result<UploadTicket, APIError> {
        let body: JSONValue = ["content_type": .string(contentType), "duration_ms": .number(Double(durationMs)),
                               "round": .number(Double(round)), "sha256": .string(sha256), "size_bytes": .number(Double(sizeBytes))]
        return await typedCall(.createAttempt, path: CallPath("/sessions/", session, "/attempts"), body: body, key: key,
                               c, intended, &random, UploadTicket.init)
    }

    public func submit(attempt: String, _ c: Credentials, intended: UInt64, random: inout SeededRandom) async -> Result<AttemptInfo, APIError> {
        await typedCall(.submitAttempt, path: CallPath("/attempts/", attempt, "/submit"), c, intended, &random,
                        AttemptInfo.init)
    }

    public func attempt(_ id: String, _ c: Credentials, intended: UInt64, random: inout SeededRandom) async -> Result<AttemptInfo, APIError> {
        await typedCall(.getAttempt, path: CallPath("/attempts/", id), c, intended, &random, AttemptInfo.init)
    }

    /// `POST /sessions/{id}/complete` with the session id as Idempotency-Key (API.md).
    public func complete(session: String, _ c: Credentials, intended: UInt64, random: inout SeededRandom) async -> Result<SettlementInfo, APIError> {
        await typedCall(.completeSession, path: CallPath("/sessions/", session, "/complete"), key: session,
                        c, intended, &random, SettlementInfo.init)
    }

    public func home(_ c: Credentials, intended: UInt64, random: inout SeededRandom) async -> Result<HomeInfo, APIError> {
        await typedCall(.getHome, path: "/home", c, intended, &random) { $0.object == nil ? nil : HomeInfo($0) }
    }

    public func config(_ c: Credentials, intended: UInt64, random: inout SeededRandom) async -> Result<JSONValue, APIError> {
        await typedCall(.getConfig, path: "/config", c, intended, &random, Self.object)
    }

    public func me(_ c: Credentials, intended: UInt64, random: inout SeededRandom) async -> Result<JSONValue, APIError> {
        await typedCall(.getMe, path: "/me", c, intended, &random, Self.object)
    }

    /// The body when it is a JSON object. (Spelled out: `nil` would be `JSONValue.null`, which is
    /// a nil literal too.)
    static func object(_ j: JSONValue) -> JSONValue? { j.object == nil ? Optional<JSONValue>.none : j }

    /// A call whose 2xx body becomes `T`; a body lacking what `make` needs is `bad_shape`, and is
    /// repeated like any malformed answer when the call is safe to repeat.
    func typedCall<T>(_ route: Route, path: CallPath, body: JSONValue? = nil, key: String? = nil, _ c: Credentials,
                      _ intended: UInt64, _ random: inout SeededRandom, _ make: (JSONValue) -> T?) async -> Result<T, APIError> {
        await perform(route, path: path, body: body, key: key, credentials: c, intended: intended, random: &random) {
            make($0.body)
        }
    }
}
