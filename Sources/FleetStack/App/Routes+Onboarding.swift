import FleetCore
import FleetSQLite

/// Onboarding, the diagnostic's plan, and the paywall.
extension StackApp {
    /// `POST /onboarding`: stores the answers, makes `practice_language` primary, and returns the
    /// diagnostic session (one per user: a repeat returns the same one) with its article.
    func onboarding(_ c: inout RequestContext) throws -> Reply {
        let language = try c.string("practice_language", maxLength: 35)
        guard settings.practiceLanguages.contains(language) else {
            throw APIError.invalid("'practice_language' must be one of \(settings.practiceLanguages.joined(separator: ", "))")
        }
        let goal = try c.string("goal", maxLength: 64)
        let scenario = try c.string("scenario", maxLength: 64)
        let selfLevel = try c.string("self_level", maxLength: 32)
        let minutes = try c.int("commitment_minutes", in: 1...240)
        let reminder = try c.string("reminder_time", maxLength: 5)
        let hm = reminder.split(separator: ":")
        guard hm.count == 2, hm[0].count == 2, hm[1].count == 2, let h = Int(hm[0]), let m = Int(hm[1]), h < 24, m < 60 else {
            throw APIError.invalid("'reminder_time' must be HH:MM, got '\(reminder)'")
        }
        guard let topicsValue = c.body["topics"]?.array else { throw APIError.invalid("'topics' is required (a list of topic ids)") }
        let known = Set(catalog.topics.map(\.id))
        var topics: [String] = []
        for t in topicsValue {
            guard let id = t.string, known.contains(id) else {
                throw APIError.invalid("'topics' must hold ids from GET /topics; '\(t.string ?? "?")' is not one")
            }
            topics.append(id)
        }
        let user = c.user!
        if let existing = user.diagnosticSessionID,
           let s = try db.queryOne("SELECT \(SessionRow.columns) FROM sessions WHERE id = ?", .text(existing)).map(SessionRow.init),
           let article = catalog.article(s.articleID) {
            return .json(200, ["diagnostic_session": try sessionJSON(s), "article": article.json])
        }
        let answers: JSONValue = [
            "practice_language": .string(language), "goal": .string(goal), "scenario": .string(scenario),
            "topics": .array(topics.map { .string($0) }), "self_level": .string(selfLevel),
            "commitment_minutes": .number(Double(minutes)), "reminder_time": .string(reminder),
        ]
        let article = catalog.articles.first { $0.language == language && !$0.locked && topics.contains($0.topic) }
            ?? catalog.firstUnlocked(language: language)
        guard let article else { throw APIError.internalError("no unlocked article in '\(language)'") }
        let languages = [language] + user.practiceLanguages.filter { $0 != language }
        let id = IDs.make("ses")
        try db.run("""
            INSERT INTO sessions (id, user_id, kind, article_id, language, stage, created_at) VALUES (?, ?, 'diagnostic', ?, ?, 'reading', ?)
            """, .text(id), .text(user.id), .text(article.id), .text(language), .int(c.nowMs))
        try db.run("""
            UPDATE users SET onboarding = 'completed', onboarding_json = ?, practice_languages = ?, diagnostic_session_id = ? WHERE id = ?
            """, .text(answers.serialized()), .text(languages.joined(separator: ",")), .text(id), .text(user.id))
        return .json(200, ["diagnostic_session": try sessionJSON(try ownedSession(id, c)), "article": article.json])
    }

    /// Called when the diagnostic's round 1 is assessed: the plan job "runs" for `planDelayMs`,
    /// so the plan is stored now with the time it becomes visible. Focus = the weakest dimension.
    func schedulePlan(userID: String, language: String, weakest: String, nowMs: Int64) throws {
        guard let user = try loadUser(userID) else { return }
        var topics: [String] = []
        if let raw = try db.queryOne("SELECT onboarding_json FROM users WHERE id = ?", .text(userID))?.optionalText(0),
           let answers = try? JSONValue.parse(raw) {
            topics = answers["topics"]?.array?.compactMap(\.string) ?? []
        }
        let unlocked = catalog.articles.filter { $0.language == language && !$0.locked }
        let preferred = unlocked.filter { topics.contains($0.topic) } + unlocked.filter { !topics.contains($0.topic) }
        guard !preferred.isEmpty else { return }
        let focuses = [weakest, "fluency", "pronunciation", "completeness"]
        let days: [JSONValue] = (0..<14).map { i in
            ["day": .number(Double(i + 1)), "article_id": .string(preferred[i % preferred.count].id),
             "focus": .string(focuses[i % 3 == 0 ? 0 : (i % 3)])]
        }
        try db.run("""
            INSERT OR REPLACE INTO plans (user_id, ready_at, start_day, days, created_at) VALUES (?, ?, ?, ?, ?)
            """, .text(userID), .int(nowMs + Int64(settings.planDelayMs)), .int(user.timezone.localDay(atMs: nowMs)),
                   .blob(JSONValue.array(days).serializedBytes()), .int(nowMs))
    }

    /// The user's plan once ready: (days, today's day number 1…14).
    func readyPlan(_ user: UserRow, nowMs: Int64) throws -> (days: [JSONValue], today: Int)? {
        guard let row = try db.queryOne("SELECT ready_at, start_day, days FROM plans WHERE user_id = ?", .text(user.id)),
              nowMs >= row.int(0), let days = try? JSONValue.parse(row.blob(2)).array, !days.isEmpty else { return nil }
        let elapsed = Int(user.timezone.localDay(atMs: nowMs) - row.int(1))
        return (days, max(0, elapsed) % days.count + 1)
    }

    /// `GET /plan` → 14 days, or `404 plan_not_ready` (retryable) until the plan job has finished.
    func plan(_ c: inout RequestContext) throws -> Reply {
        guard let p = try readyPlan(c.user, nowMs: c.nowMs) else {
            throw APIError(status: 404, code: "plan_not_ready", message: "the plan is not ready yet", retryable: true)
        }
        return .json(200, ["days": .array(p.days)])
    }

    /// The products `/paywall` lists; signed transactions must name one of them.
    static let products: [JSONValue] = [
        ["id": "fleet.premium.monthly", "period": "P1M", "price": 9.99, "currency": "USD", "trial_days": 7],
        ["id": "fleet.premium.yearly", "period": "P1Y", "price": 59.99, "currency": "USD", "trial_days": 7],
    ]
    static let productIDs = Set(products.compactMap { $0["id"]?.string })

    /// `GET /paywall`: products, a projection from the diagnostic, and the plan preview when ready.
    func paywall(_ c: inout RequestContext) throws -> Reply {
        var baseline = 55
        if let id = c.user.diagnosticSessionID, let a = try currentAttempt(sessionID: id, round: 1), let o = a.overall { baseline = o }
        var body: JSONObject = [
            "products": .array(StackApp.products),
            "projection": ["metric": "overall", "current": .number(Double(baseline)),
                           "in_4_weeks": .number(Double(min(100, baseline + 12)))],
            "sample_n": 1200,
            "social_proof": ["rating": 4.8, "reviews": 12_000],
        ]
        if let p = try readyPlan(c.user, nowMs: c.nowMs) { body["plan_preview"] = .array(Array(p.days.prefix(3))) }
        return .json(200, .object(body))
    }
}
