import FleetCore
import FleetSQLite

/// A user as stored, with the derived views the API shows (effective entitlement, live streak).
struct UserRow: Sendable {
    static let columns = """
    id, install_id, timezone, locale, ui_locale, practice_languages, app_version, platform, created_at, deleted_at, \
    onboarding, ent_status, ent_expires_at, ent_grace_until, xp, streak, streak_day, sessions_completed, \
    diagnostic_session_id
    """

    let id: String
    let installID: String
    let timezone: UserTimeZone
    let locale: String
    let uiLocale: String?
    let practiceLanguages: [String]
    let appVersion: String
    let createdAt: Int64
    let deletedAt: Int64?
    let onboarding: String
    let entStatus: String
    let entExpiresAt: Int64?
    let entGraceUntil: Int64?
    let xp: Int64
    let streak: Int64
    let streakDay: Int64?
    let sessionsCompleted: Int64
    let diagnosticSessionID: String?

    init(_ r: SQLiteRow) {
        id = r.text(0); installID = r.text(1); timezone = UserTimeZone(r.text(2)); locale = r.text(3)
        uiLocale = r.optionalText(4)
        practiceLanguages = r.text(5).split(separator: ",").map(String.init)
        appVersion = r.text(6); createdAt = r.int(8); deletedAt = r.optionalInt(9); onboarding = r.text(10)
        entStatus = r.text(11); entExpiresAt = r.optionalInt(12); entGraceUntil = r.optionalInt(13)
        xp = r.int(14); streak = r.int(15); streakDay = r.optionalInt(16); sessionsCompleted = r.int(17)
        diagnosticSessionID = r.optionalText(18)
    }

    var primaryLanguage: String { practiceLanguages.first ?? "en" }

    /// The entitlement status at `nowMs`: a lapsed trial or subscription reads `grace` until
    /// `grace_until`, then `expired`.
    func entitlementStatus(nowMs: Int64) -> String {
        guard entStatus == "trial" || entStatus == "active" || entStatus == "grace", let exp = entExpiresAt, nowMs >= exp else {
            return entStatus
        }
        if let g = entGraceUntil, nowMs < g { return "grace" }
        return "expired"
    }

    /// The streak as shown: 0 once a local day was missed (API.md "Streak").
    func liveStreak(nowMs: Int64, utc: Bool = false) -> Int64 {
        guard let day = streakDay else { return 0 }
        return streakDayNumber(atMs: nowMs, utc: utc) - day <= 1 ? streak : 0
    }

    /// The day a settlement at `ms` counts for: the user's local day, or the UTC day under the
    /// `streak-utc` bug.
    func streakDayNumber(atMs ms: Int64, utc: Bool) -> Int64 {
        utc ? DayNumber.utc(atMs: ms) : timezone.localDay(atMs: ms)
    }

    static func level(xp: Int64) -> Int64 { 1 + xp / Rules.xpPerLevel }

    func entitlementJSON(nowMs: Int64) -> JSONValue {
        [
            "status": .string(entitlementStatus(nowMs: nowMs)),
            "expires_at": entExpiresAt.map { .string(RFC3339.format(millis: $0)) } ?? .null,
            "grace_until": entGraceUntil.map { .string(RFC3339.format(millis: $0)) } ?? .null,
        ]
    }

    func meJSON(nowMs: Int64, utcStreak: Bool = false) -> JSONValue {
        [
            "user_id": .string(id),
            "onboarding": ["status": .string(onboarding)],
            "entitlement": entitlementJSON(nowMs: nowMs),
            "settings": [
                "ui_locale": uiLocale.map { .string($0) } ?? .null,
                "practice_languages": .array(practiceLanguages.map { .string($0) }),
            ],
            "stats": [
                "xp": .number(Double(xp)), "level": .number(Double(UserRow.level(xp: xp))),
                "streak": .number(Double(liveStreak(nowMs: nowMs, utc: utcStreak))),
                "sessions_completed": .number(Double(sessionsCompleted)),
            ],
        ]
    }
}

/// A practice session as stored.
struct SessionRow: Sendable {
    static let columns = "id, user_id, kind, article_id, language, stage, created_at, completed_at, overall"

    let id: String
    let userID: String
    let kind: String
    let articleID: String
    let language: String
    var stage: String
    let createdAt: Int64
    let completedAt: Int64?
    let overall: Int?

    init(_ r: SQLiteRow) {
        id = r.text(0); userID = r.text(1); kind = r.text(2); articleID = r.text(3); language = r.text(4)
        stage = r.text(5); createdAt = r.int(6); completedAt = r.optionalInt(7); overall = r.optionalInt(8).map(Int.init)
    }

    var isInProgress: Bool { stage != "completed" && stage != "abandoned" }
    /// How many recorded rounds this kind of session has (the diagnostic has one).
    var roundCount: Int { kind == "diagnostic" ? 1 : 2 }
}

/// One recording attempt as stored.
struct AttemptRow: Sendable {
    static let columns = """
    id, session_id, user_id, round, idem_key, body_hash, sha256, size_bytes, content_type, duration_ms, status, \
    retryable, reason, created_at, submitted_at, assessed_at, assessment_id, overall, fluency, pronunciation, \
    completeness, confidence
    """

    let id: String
    let sessionID: String
    let userID: String
    let round: Int
    let idemKey: String
    let bodyHash: String
    let sha256: String
    let sizeBytes: Int
    let contentType: String
    let durationMs: Int
    let status: String
    let retryable: Bool
    let reason: String?
    let createdAt: Int64
    let submittedAt: Int64?
    let assessedAt: Int64?
    let assessmentID: String?
    let overall: Int?
    let fluency: Int?
    let pronunciation: Int?
    let completeness: Int?
    let confidence: Double?

    init(_ r: SQLiteRow) {
        id = r.text(0); sessionID = r.text(1); userID = r.text(2); round = Int(r.int(3)); idemKey = r.text(4)
        bodyHash = r.text(5); sha256 = r.text(6); sizeBytes = Int(r.int(7)); contentType = r.text(8)
        durationMs = Int(r.int(9)); status = r.text(10); retryable = r.int(11) != 0; reason = r.optionalText(12)
        createdAt = r.int(13); submittedAt = r.optionalInt(14); assessedAt = r.optionalInt(15)
        assessmentID = r.optionalText(16); overall = r.optionalInt(17).map(Int.init)
        fluency = r.optionalInt(18).map(Int.init); pronunciation = r.optionalInt(19).map(Int.init)
        completeness = r.optionalInt(20).map(Int.init); confidence = r[21].doubleValue
    }

    var isTerminal: Bool { status == "assessed" || status == "failed" || status == "unreliable" }

    var json: JSONValue {
        var o: JSONObject = [
            "id": .string(id), "session_id": .string(sessionID), "round": .number(Double(round)),
            "status": .string(status), "retryable": .bool(retryable),
            "submitted_at": submittedAt.map { .string(RFC3339.format(millis: $0)) } ?? .null,
        ]
        if let reason { o["reason"] = .string(reason) }
        if let assessedAt { o["assessed_at"] = .string(RFC3339.format(millis: assessedAt)) }
        if status == "assessed", let assessmentID, let overall, let fluency, let pronunciation, let completeness {
            o["assessment"] = [
                "id": .string(assessmentID), "overall": .number(Double(overall)),
                "dimensions": ["fluency": .number(Double(fluency)), "pronunciation": .number(Double(pronunciation)),
                               "completeness": .number(Double(completeness))],
                "confidence": .number(confidence ?? 0),
            ]
        }
        return .object(o)
    }
}
