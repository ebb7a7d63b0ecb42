import FleetCore
import FleetSQLite

/// The account: settings, push token, deleting training data or the whole account.
extension StackApp {
    /// `PATCH /me {settings: {ui_locale?, practice_languages?}}`: `ui_locale` must be supported or
    /// null (follow the device); `practice_languages` needs ≥ 1 supported language, first = primary.
    func patchMe(_ c: inout RequestContext) throws -> Reply {
        guard let settingsPatch = c.body["settings"], case .object(let fields) = settingsPatch else {
            throw APIError.invalid("'settings' is required (an object)")
        }
        if let unknown = fields.keys.sorted().first(where: { $0 != "ui_locale" && $0 != "practice_languages" }) {
            throw APIError.invalid("'settings.\(unknown)' is not a setting (ui_locale, practice_languages)")
        }
        if let v = fields["ui_locale"] {
            if v.isNull {
                try db.run("UPDATE users SET ui_locale = NULL WHERE id = ?", .text(c.user.id))
            } else {
                guard let locale = v.string, settings.uiLocales.contains(locale) else {
                    throw APIError.invalid("'settings.ui_locale' must be one of \(settings.uiLocales.joined(separator: ", ")) or null")
                }
                try db.run("UPDATE users SET ui_locale = ? WHERE id = ?", .text(locale), .text(c.user.id))
            }
        }
        if let v = fields["practice_languages"] {
            guard let list = v.array?.compactMap(\.string), list.count == v.array?.count, !list.isEmpty,
                  list.allSatisfy({ settings.practiceLanguages.contains($0) }), Set(list).count == list.count else {
                throw APIError.invalid("'settings.practice_languages' must be a non-empty list of distinct languages from \(settings.practiceLanguages.joined(separator: ", "))")
            }
            try db.run("UPDATE users SET practice_languages = ? WHERE id = ?", .text(list.joined(separator: ",")), .text(c.user.id))
        }
        guard let user = try loadUser(c.user.id) else { throw APIError.internalError("user vanished") }
        return .json(200, user.meJSON(nowMs: c.nowMs, utcStreak: settings.bug(.streakUTC)))
    }

    /// `PUT /me/push-token {token}` → 204.
    func putPushToken(_ c: inout RequestContext) throws -> Reply {
        let token = try c.string("token", maxLength: 512)
        try db.run("UPDATE users SET push_token = ? WHERE id = ?", .text(token), .text(c.user.id))
        return .empty(204)
    }

    /// Removes every session of the user and what hangs off it (attempts, audio, settlements,
    /// stored idempotent answers pointing at them).
    func deleteSessions(userID: String, only sessionID: String? = nil) throws {
        let filter = sessionID == nil ? "user_id = ?" : "user_id = ? AND id = ?"
        var args: [SQLiteValue] = [.text(userID)]
        if let sessionID { args.append(.text(sessionID)) }
        let ids = try db.prepare("SELECT id FROM sessions WHERE \(filter)")
        try ids.bind(args)
        var sessionIDs: [String] = []
        while try ids.step() { sessionIDs.append(ids.text(0)) }
        ids.reset()
        for id in sessionIDs {
            for attempt in try db.query("SELECT id FROM attempts WHERE session_id = ?", .text(id)) { audio.remove(attempt.text(0)) }
            try db.run("DELETE FROM uploads WHERE attempt_id IN (SELECT id FROM attempts WHERE session_id = ?)", .text(id))
            try db.run("DELETE FROM feedback WHERE assessment_id IN (SELECT assessment_id FROM attempts WHERE session_id = ?)", .text(id))
            try db.run("DELETE FROM attempts WHERE session_id = ?", .text(id))
            try db.run("DELETE FROM settlements WHERE session_id = ?", .text(id))
            try db.run("DELETE FROM idempotency WHERE user_id = ? AND (object_id = ? OR path LIKE ?)",
                       .text(userID), .text(id), .text("/sessions/\(id)/%"))
            try db.run("DELETE FROM sessions WHERE id = ?", .text(id))
        }
    }

    /// `DELETE /me/training-data` → 202: sessions, attempts, audio, growth, stats (XP, streak,
    /// counts, achievements) and the repeat-discount history go; entitlement, onboarding status
    /// and plan stay. Done inside the request, so the 202's job has already finished.
    func deleteTrainingData(_ c: inout RequestContext) throws -> Reply {
        try deleteSessions(userID: c.user.id)
        try db.run("DELETE FROM completions WHERE user_id = ?", .text(c.user.id))
        try db.run("DELETE FROM achievements WHERE user_id = ?", .text(c.user.id))
        try db.run("""
            UPDATE users SET xp = 0, streak = 0, streak_day = NULL, sessions_completed = 0, diagnostic_session_id = NULL WHERE id = ?
            """, .text(c.user.id))
        return .json(202, [
            "job_id": .string(IDs.make("job")),
            "purge_backups_by": .string(RFC3339.format(millis: c.nowMs + 30 * 86_400_000)),
        ])
    }

    /// `DELETE /me` → 204: all data goes; the install id stays reserved (403 on sign-in) and the
    /// old tokens answer 401.
    func deleteMe(_ c: inout RequestContext) throws -> Reply {
        try deleteSessions(userID: c.user.id)
        for table in ["completions", "achievements", "idempotency", "transactions", "plans", "feedback"] {
            try db.run("DELETE FROM \(table) WHERE user_id = ?", .text(c.user.id))
        }
        try db.run("""
            UPDATE users SET deleted_at = ?, xp = 0, streak = 0, streak_day = NULL, sessions_completed = 0, push_token = NULL,
            onboarding_json = NULL, diagnostic_session_id = NULL, ent_status = 'none', ent_expires_at = NULL,
            ent_grace_until = NULL WHERE id = ?
            """, .int(c.nowMs), .text(c.user.id))
        return .empty(204)
    }
}

extension StackApp {
    /// `GET /_stack/stats` → 200 `{users, sessions, attempts, settlements}`: rows in the database now.
    func stats() throws -> Reply {
        var out: JSONObject = [:]
        for table in ["users", "sessions", "attempts", "settlements"] {
            out[table] = .number(Double(try db.queryOne("SELECT COUNT(*) FROM \(table)")?.int(0) ?? 0))
        }
        return .json(200, .object(out))
    }
}
