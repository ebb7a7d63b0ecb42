import FleetCore
import FleetSQLite

/// Home, session creation and reading.
extension StackApp {
    // MARK: Lookups with ownership

    /// The session `id` if it belongs to `user`: 404 when unknown, 403 when someone else's.
    func ownedSession(_ id: String, _ c: RequestContext) throws -> SessionRow {
        guard let s = try db.queryOne("SELECT \(SessionRow.columns) FROM sessions WHERE id = ?", .text(id)).map(SessionRow.init) else {
            throw APIError.notFound("session '\(id)'")
        }
        guard s.userID == c.user.id else { throw APIError.forbidden("session '\(id)' belongs to another user") }
        return s
    }

    /// The latest attempt of `round` (a re-recording replaces the round's current attempt).
    func currentAttempt(sessionID: String, round: Int) throws -> AttemptRow? {
        try db.queryOne("SELECT \(AttemptRow.columns) FROM attempts WHERE session_id = ? AND round = ? ORDER BY rowid DESC LIMIT 1",
                        .text(sessionID), .int(Int64(round))).map(AttemptRow.init)
    }

    func sessionJSON(_ s: SessionRow) throws -> JSONValue {
        var rounds: [JSONValue] = []
        for r in 1...s.roundCount {
            if let a = try currentAttempt(sessionID: s.id, round: r) {
                rounds.append(["round": .number(Double(r)), "attempt_id": .string(a.id), "status": .string(a.status)])
            }
        }
        return [
            "id": .string(s.id), "kind": .string(s.kind), "article_id": .string(s.articleID), "language": .string(s.language),
            "stage": .string(s.stage), "rounds": .array(rounds), "created_at": .string(RFC3339.format(millis: s.createdAt)),
        ]
    }

    func setStage(_ sessionID: String, _ stage: String, completedAt: Int64? = nil) throws {
        if let completedAt {
            try db.run("UPDATE sessions SET stage = ?, completed_at = ? WHERE id = ?", .text(stage), .int(completedAt), .text(sessionID))
        } else {
            try db.run("UPDATE sessions SET stage = ? WHERE id = ?", .text(stage), .text(sessionID))
        }
    }

    // MARK: Routes

    /// `GET /home`: today's quest (plan day when there is a plan, else the first unlocked article in
    /// the primary practice language), the most recent in-progress session, and the live streak.
    func home(_ c: inout RequestContext) throws -> Reply {
        let user = c.user!
        var quest: JSONObject = ["status": "not_started"]
        var extra: JSONObject = [:]
        var questArticle = catalog.firstUnlocked(language: user.primaryLanguage)
        if let plan = try readyPlan(user, nowMs: c.nowMs), let day = plan.days[plan.today - 1].object,
           let id = day["article_id"]?.string, let a = catalog.article(id) {
            questArticle = a
            extra["plan_day"] = .number(Double(plan.today))
            if let focus = day["focus"] { extra["focus"] = focus }
        }
        if let article = questArticle {
            quest["article_id"] = .string(article.id)
            if let s = try db.queryOne("""
                SELECT \(SessionRow.columns) FROM sessions WHERE user_id = ? AND article_id = ? AND kind = 'daily'
                ORDER BY created_at DESC, rowid DESC LIMIT 1
                """, .text(user.id), .text(article.id)).map(SessionRow.init) {
                let today = user.timezone.localDay(atMs: c.nowMs)
                if s.isInProgress {
                    quest["status"] = "in_progress"; quest["session_id"] = .string(s.id)
                } else if s.stage == "completed", let done = s.completedAt, user.timezone.localDay(atMs: done) == today {
                    quest["status"] = "completed"; quest["session_id"] = .string(s.id)
                }
            }
        }
        // The `stale-resume` bug forgets to leave abandoned sessions out.
        let excluded = settings.bug(.staleResume) ? "('completed')" : "('completed', 'abandoned')"
        let resume = try db.queryOne("""
            SELECT id, stage FROM sessions WHERE user_id = ? AND stage NOT IN \(excluded)
            ORDER BY created_at DESC, rowid DESC LIMIT 1
            """, .text(user.id))
        let resumeJSON: JSONValue = resume.map { ["id": .string($0.text(0)), "stage": .string($0.text(1))] } ?? .null
        extra["today_quest"] = .object(quest)
        extra["resume_session"] = resumeJSON
        extra["streak"] = .number(Double(user.liveStreak(nowMs: c.nowMs, utc: settings.bug(.streakUTC))))
        return .json(200, .object(extra))
    }

    /// `POST /sessions`: 201 a new daily/free session, 200 the existing in-progress session of the
    /// same kind for the article; 402 without entitlement; 403 (with `unlock_hint`) for a locked
    /// article. Only the kind asked for counts: a diagnostic (one round) still in progress on
    /// today's quest article must not come back for a daily request (two rounds).
    func createSession(_ c: inout RequestContext) throws -> Reply {
        let key = try idempotencyKey(c)
        return try idempotent(c, key: key) {
            let articleID = try c.string("article_id", maxLength: 128)
            let kind = try c.string("kind", maxLength: 16)
            guard kind == "daily" || kind == "free" else { throw APIError.invalid("'kind' must be daily or free, got '\(kind)'") }
            guard let article = catalog.article(articleID) else { throw APIError.invalid("'article_id': no article '\(articleID)'") }
            let ent = c.user.entitlementStatus(nowMs: c.nowMs)
            guard ent == "trial" || ent == "active" || ent == "grace" else { throw APIError.entitlementRequired }
            if article.locked {
                var e = APIError.forbidden("article '\(articleID)' is locked")
                e.details = ["unlock_hint": .string(article.unlockHint ?? "")]
                throw e
            }
            if let existing = try db.queryOne("""
                SELECT \(SessionRow.columns) FROM sessions WHERE user_id = ? AND article_id = ? AND kind = ?
                AND stage NOT IN ('completed', 'abandoned') ORDER BY created_at DESC, rowid DESC LIMIT 1
                """, .text(c.user.id), .text(articleID), .text(kind)).map(SessionRow.init) {
                var r = Reply.json(200, try sessionJSON(existing))
                r.objectID = existing.id
                return r
            }
            let id = IDs.make("ses")
            try db.run("""
                INSERT INTO sessions (id, user_id, kind, article_id, language, stage, created_at) VALUES (?, ?, ?, ?, ?, 'reading', ?)
                """, .text(id), .text(c.user.id), .text(kind), .text(articleID), .text(article.language), .int(c.nowMs))
            var r = Reply.json(201, try sessionJSON(try ownedSession(id, c)))
            r.objectID = id
            return r
        }
    }

    /// `GET /sessions/{id}`.
    func getSession(_ c: inout RequestContext) throws -> Reply {
        .json(200, try sessionJSON(try ownedSession(c.param("id"), c)))
    }

    /// `POST /sessions/{id}/reading-complete`: reading → round1; idempotent once past reading.
    func readingComplete(_ c: inout RequestContext) throws -> Reply {
        var s = try ownedSession(c.param("id"), c)
        if s.stage == "reading" {
            try setStage(s.id, "round1")
            s.stage = "round1"
        } else if s.stage == "abandoned" {
            throw APIError.stage("the session was abandoned", stage: s.stage)
        }
        return .json(200, try sessionJSON(s))
    }
}

extension StackApp {
    /// `POST /sessions/{id}/abandon` → 200 Session (`abandoned`); idempotent; 409 once completed.
    func abandon(_ c: inout RequestContext) throws -> Reply {
        var s = try ownedSession(c.param("id"), c)
        guard s.stage != "completed" else { throw APIError.stage("a completed session cannot be abandoned", stage: s.stage) }
        if s.stage != "abandoned" {
            try setStage(s.id, "abandoned")
            s.stage = "abandoned"
        }
        return .json(200, try sessionJSON(s))
    }

    /// `DELETE /sessions/{id}` → 204: the session, its attempts, audio and growth point go; XP,
    /// streak and counts stay.
    func deleteSession(_ c: inout RequestContext) throws -> Reply {
        let s = try ownedSession(c.param("id"), c)
        try deleteSessions(userID: c.user.id, only: s.id)
        return .empty(204)
    }
}
