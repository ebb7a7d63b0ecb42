import FleetCore
import FleetSQLite

/// Settlement: `POST /sessions/{id}/complete`, exactly once per session.
extension StackApp {
    /// Settles a session whose rounds are all assessed, inside the request's one transaction:
    /// XP (halved for an article settled in the previous 7 days), streak (+1 on the first
    /// settlement of a local day, back to 1 after a missed day), level, achievements, outcome.
    /// The first settlement is stored; a repeat returns it with `replayed: true` and changes nothing.
    func complete(_ c: inout RequestContext) throws -> Reply {
        let key = try idempotencyKey(c)
        guard key == c.param("id") else {
            throw APIError.invalid("the Idempotency-Key of complete must be the session id '\(c.param("id"))'")
        }
        let s = try ownedSession(c.param("id"), c)
        if let stored = try db.queryOne("SELECT body FROM settlements WHERE session_id = ?", .text(s.id)) {
            return .json(200, try replayed(stored.blob(0)))
        }
        guard s.stage != "abandoned" else { throw APIError.stage("the session was abandoned", stage: s.stage) }

        var overall: [Int] = []
        for r in 1...s.roundCount {
            guard let a = try currentAttempt(sessionID: s.id, round: r), a.status == "assessed", let o = a.overall else {
                throw APIError.stage("round \(r) is not assessed yet", missingRound: r, stage: s.stage)
            }
            overall.append(o)
        }
        let user = c.user!
        let now = c.nowMs
        let outcome = overall.count == 2 ? Rules.outcome(round1: overall[0], round2: overall[1]) : "same"

        var xpAwarded: Int64 = 0
        var streak = user.liveStreak(nowMs: now)
        var streakDay = user.streakDay
        var extended = false
        var sessionsCompleted = user.sessionsCompleted
        if s.kind != "diagnostic" {
            xpAwarded = Rules.baseXP(kind: s.kind) + (outcome == "improved" ? Rules.improvedBonusXP : 0)
            let recent = try db.queryOne("""
                SELECT count(*) FROM completions WHERE user_id = ? AND article_id = ? AND completed_at > ?
                """, .text(user.id), .text(s.articleID), .int(now - Rules.repeatWindowMs))?.int(0) ?? 0
            if recent > 0 { xpAwarded /= 2 }
            let today = user.timezone.localDay(atMs: now)
            if streakDay != today {
                streak = (streakDay == today - 1) ? user.streak + 1 : 1
                streakDay = today
                extended = true
            }
            sessionsCompleted += 1
            try db.run("INSERT INTO completions (user_id, article_id, session_id, completed_at) VALUES (?, ?, ?, ?)",
                       .text(user.id), .text(s.articleID), .text(s.id), .int(now))
        }
        let xpTotal = user.xp + xpAwarded
        let levelBefore = UserRow.level(xp: user.xp), levelAfter = UserRow.level(xp: xpTotal)
        try db.run("""
            UPDATE users SET xp = ?, streak = ?, streak_day = ?, sessions_completed = ? WHERE id = ?
            """, .int(xpTotal), .int(streak), .optionalInt(streakDay), .int(sessionsCompleted), .text(user.id))

        var achievements: [JSONValue] = []
        if s.kind != "diagnostic" {
            for id in Rules.earnedAchievements(sessionsCompleted: sessionsCompleted, streak: streak, level: levelAfter) {
                let added = try db.run("INSERT OR IGNORE INTO achievements (user_id, id, earned_at) VALUES (?, ?, ?)",
                                       .text(user.id), .text(id), .int(now))
                if added > 0 { achievements.append(["id": .string(id), "title": .string(Rules.achievementTitles[id] ?? id)]) }
            }
        }
        try setStage(s.id, "completed", completedAt: now)

        let settlement: JSONValue = [
            "session_id": .string(s.id),
            "xp_awarded": .number(Double(xpAwarded)),
            "xp_total": .number(Double(xpTotal)),
            "streak": ["current": .number(Double(streak)), "extended": .bool(extended)],
            "level": ["current": .number(Double(levelAfter)), "leveled_up": .bool(levelAfter > levelBefore)],
            "achievements": .array(achievements),
            "outcome": .string(outcome),
            "replayed": false,
        ]
        let bytes = settlement.serializedBytes()
        try db.run("INSERT INTO settlements (session_id, user_id, body, created_at) VALUES (?, ?, ?, ?)",
                   .text(s.id), .text(user.id), .blob(bytes), .int(now))
        return Reply(status: 200, body: bytes)
    }

    /// The stored settlement with `replayed` set; keys serialise sorted, so every other byte is the first answer's.
    private func replayed(_ stored: [UInt8]) throws -> JSONValue {
        guard case .object(var o) = try JSONValue.parse(stored) else { throw APIError.internalError("stored settlement is not an object") }
        o["replayed"] = .bool(true)
        return .object(o)
    }
}
