import Dispatch
import FleetCore
import FleetHTTPServer
import FleetSQLite

/// Settlement: `POST /sessions/{id}/complete`, exactly once per session.
extension StackApp {
    /// What a settlement will write, computed from a consistent read.
    struct SettlementPlan {
        let session: SessionRow
        let xpAwarded: Int64
        let streak: Int64
        let streakDay: Int64?
        let finalOverall: Int?
        let countsAsSession: Bool
        let body: JSONValue
        let achievements: [String]
    }

    enum SettlementStep {
        case replay(JSONValue)
        case settle(SettlementPlan)
    }

    /// Settles a session whose rounds are all assessed, inside the request's one transaction:
    /// XP (halved for an article settled in the previous 7 days), streak (+1 on the first
    /// settlement of a local day, back to 1 after a missed day), level, achievements, outcome.
    /// The first settlement is stored; a repeat returns it with `replayed: true` and changes nothing.
    func complete(_ c: inout RequestContext) throws -> Reply {
        switch try planSettlement(c) {
        case .replay(let body): return .json(200, body)
        case .settle(let plan):
            try applySettlement(plan, c)
            return .json(200, plan.body)
        }
    }

    /// The read half of settlement: checks, then computes every number from the current state.
    func planSettlement(_ c: RequestContext) throws -> SettlementStep {
        let key = try idempotencyKey(c)
        guard key == c.param("id") else {
            throw APIError.invalid("the Idempotency-Key of complete must be the session id '\(c.param("id"))'")
        }
        let s = try ownedSession(c.param("id"), c)
        if let stored = try db.queryOne("SELECT body FROM settlements WHERE session_id = ?", .text(s.id)) {
            return .replay(try replayed(stored.blob(0)))
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
        let counts = s.kind != "diagnostic"
        var xpAwarded: Int64 = 0
        var streak = user.liveStreak(nowMs: now, utc: settings.bug(.streakUTC))
        var streakDay = user.streakDay
        var extended = false
        var sessionsCompleted = user.sessionsCompleted
        if counts {
            xpAwarded = Rules.baseXP(kind: s.kind) + (outcome == "improved" ? Rules.improvedBonusXP : 0)
            let recent = try db.queryOne("""
                SELECT count(*) FROM completions WHERE user_id = ? AND article_id = ? AND completed_at > ?
                """, .text(user.id), .text(s.articleID), .int(now - Rules.repeatWindowMs))?.int(0) ?? 0
            if recent > 0 { xpAwarded /= 2 }
            let today = user.streakDayNumber(atMs: now, utc: settings.bug(.streakUTC))
            if streakDay != today {
                streak = (streakDay == today - 1) ? user.streak + 1 : 1
                streakDay = today
                extended = true
            }
            sessionsCompleted += 1
        }
        let xpTotal = user.xp + xpAwarded
        let levelBefore = UserRow.level(xp: user.xp), levelAfter = UserRow.level(xp: xpTotal)
        let owned = Set(try db.query("SELECT id FROM achievements WHERE user_id = ?", .text(user.id)).map { $0.text(0) })
        let earned = counts
            ? Rules.earnedAchievements(sessionsCompleted: sessionsCompleted, streak: streak, level: levelAfter).filter { !owned.contains($0) }
            : []
        let body: JSONValue = [
            "session_id": .string(s.id),
            "xp_awarded": .number(Double(xpAwarded)),
            "xp_total": .number(Double(xpTotal)),
            "streak": ["current": .number(Double(streak)), "extended": .bool(extended)],
            "level": ["current": .number(Double(levelAfter)), "leveled_up": .bool(levelAfter > levelBefore)],
            "achievements": .array(earned.map { ["id": .string($0), "title": .string(Rules.achievementTitles[$0] ?? $0)] }),
            "outcome": .string(outcome),
            "replayed": false,
        ]
        return .settle(SettlementPlan(session: s, xpAwarded: xpAwarded, streak: streak, streakDay: streakDay,
                                      finalOverall: overall.max(), countsAsSession: counts, body: body, achievements: earned))
    }

    /// The write half: increments, so that two racing writers (the `settle-race` bug) both count.
    func applySettlement(_ p: SettlementPlan, _ c: RequestContext) throws {
        let now = c.nowMs
        try db.run("""
            UPDATE users SET xp = xp + ?, streak = ?, streak_day = ?, sessions_completed = sessions_completed + ? WHERE id = ?
            """, .int(p.xpAwarded), .int(p.streak), .optionalInt(p.streakDay), .int(p.countsAsSession ? 1 : 0), .text(c.user.id))
        if p.countsAsSession {
            try db.run("INSERT INTO completions (user_id, article_id, session_id, completed_at) VALUES (?, ?, ?, ?)",
                       .text(c.user.id), .text(p.session.articleID), .text(p.session.id), .int(now))
        }
        for id in p.achievements {
            try db.run("INSERT OR IGNORE INTO achievements (user_id, id, earned_at) VALUES (?, ?, ?)", .text(c.user.id), .text(id), .int(now))
        }
        try db.run("UPDATE sessions SET stage = 'completed', completed_at = ?, overall = ? WHERE id = ?",
                   .int(now), .optionalInt(p.finalOverall), .text(p.session.id))
        try db.run("INSERT OR REPLACE INTO settlements (session_id, user_id, body, created_at) VALUES (?, ?, ?, ?)",
                   .text(p.session.id), .text(c.user.id), .blob(p.body.serializedBytes()), .int(now))
    }

    /// The `settle-race` bug: the read and the write of a settlement run as two steps with other
    /// requests free to run between them, as a read-modify-write outside a transaction would.
    /// Concurrent completes all see "not settled" and all add their XP.
    func racyComplete(_ request: ServerRequest, params: [String: String], respond: @escaping @Sendable (ServerResponse) -> Void) {
        dbQueue.async {
            var ctx = RequestContext(request: request, params: params, nowMs: self.clock.nowMs())
            let step: SettlementStep
            do {
                ctx.user = try self.authenticate(request, nowMs: ctx.nowMs)
                step = try self.planSettlement(ctx)
            } catch let e as APIError { return respond(Reply.error(e).response) } catch {
                return respond(Reply.error(.internalError("\(error)")).response)
            }
            guard case .settle(let plan) = step else {
                if case .replay(let body) = step { respond(Reply.json(200, body).response) }
                return
            }
            let write = ctx
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(150)) {  // wide enough that racing completes overlap even on a loaded machine
                self.dbQueue.async {
                    do { try self.applySettlement(plan, write) } catch {
                        return respond(Reply.error(.internalError("\(error)")).response)
                    }
                    respond(Reply.json(200, plan.body).response)
                }
            }
        }
    }

    /// The stored settlement with `replayed` set; keys serialise sorted, so every other byte is the first answer's.
    private func replayed(_ stored: [UInt8]) throws -> JSONValue {
        guard case .object(var o) = try JSONValue.parse(stored) else { throw APIError.internalError("stored settlement is not an object") }
        o["replayed"] = .bool(true)
        return .object(o)
    }
}
