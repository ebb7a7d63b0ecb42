import FleetCore

/// The account: typed `GET /me`, `PATCH /me`, deleting training data, the account, or a session.
extension APIClient {
    public func meInfo(_ c: Credentials, intended: UInt64, random: inout SeededRandom) async -> Result<MeInfo, APIError> {
        await typedCall(.getMe, path: "/me", c, intended, &random, MeInfo.init)
    }

    /// `PATCH /me {settings: {...}}`. `uiLocale: .some(nil)` sends `null` (follow the device);
    /// nil leaves a setting out of the patch.
    public func patchMe(uiLocale: String?? = nil, practiceLanguages: [String]? = nil, _ c: Credentials, intended: UInt64,
                        random: inout SeededRandom) async -> Result<MeInfo, APIError> {
        var fields: JSONObject = [:]
        if let locale = uiLocale { fields["ui_locale"] = locale.map { .string($0) } ?? .null }
        if let langs = practiceLanguages { fields["practice_languages"] = .array(langs.map { .string($0) }) }
        return await typedCall(.patchMe, path: "/me", body: ["settings": .object(fields)], c, intended, &random, MeInfo.init)
    }

    /// `DELETE /me/training-data` → 202 `{job_id, purge_backups_by}`; returns the job id.
    public func deleteTrainingData(_ c: Credentials, intended: UInt64, random: inout SeededRandom) async -> Result<String, APIError> {
        await typedCall(.deleteTrainingData, path: "/me/training-data", c, intended, &random) { j in
            j["job_id"]?.string ?? ""
        }
    }

    /// `DELETE /me` → 204. The caller signs out and must sign in with a new install id.
    public func deleteAccount(_ c: Credentials, intended: UInt64, random: inout SeededRandom) async -> Result<Void, APIError> {
        await call(.deleteMe, path: "/me", credentials: c, intended: intended, random: &random).map { _ in () }
    }

    /// `DELETE /sessions/{id}` → 204.
    public func deleteSession(_ id: String, _ c: Credentials, intended: UInt64, random: inout SeededRandom) async -> Result<Void, APIError> {
        await call(.deleteSession, path: CallPath("/sessions/", id), credentials: c, intended: intended, random: &random).map { _ in () }
    }
}

/// `GET /me` as the journeys read it.
public struct MeInfo: Sendable {
    public var userId: String
    /// not_started or completed.
    public var onboardingStatus: String
    public var entitlement: EntitlementInfo
    /// nil: follows the device.
    public var uiLocale: String?
    public var practiceLanguages: [String]
    public var xp: Int
    public var streak: Int
    public var sessionsCompleted: Int

    public var isOnboarded: Bool { onboardingStatus == "completed" }
    public var primaryLanguage: String? { practiceLanguages.first }

    public init?(_ j: JSONValue) {
        guard let id = j["user_id"]?.string else { return nil }
        userId = id
        onboardingStatus = j["onboarding"]?["status"]?.string ?? "not_started"
        entitlement = j["entitlement"].flatMap(EntitlementInfo.init) ?? EntitlementInfo(["status": "none"])!
        uiLocale = j["settings"]?["ui_locale"]?.string
        practiceLanguages = j["settings"]?["practice_languages"]?.array?.compactMap(\.string) ?? []
        xp = j["stats"]?["xp"]?.int ?? 0
        streak = j["stats"]?["streak"]?.int ?? 0
        sessionsCompleted = j["stats"]?["sessions_completed"]?.int ?? 0
    }
}
