import FleetCore
import FleetHTTPServer
import FleetSQLite

/// After an attempt: retry, exemplar, recorded audio and feedback on the assessment.
extension StackApp {
    /// `POST /attempts/{id}/retry` → 202: only a `failed` attempt with `retryable: true` that is
    /// still its round's current attempt; it is queued again without a new upload.
    func retry(_ c: inout RequestContext) throws -> Reply {
        let a = try ownedAttempt(c.param("id"), c)
        guard a.status == "failed", a.retryable else {
            throw APIError.stage("only a failed attempt with retryable true can be retried (this one is \(a.status))")
        }
        let s = try ownedSession(a.sessionID, c)
        guard s.stage == "round\(a.round)", try currentAttempt(sessionID: s.id, round: a.round)?.id == a.id else {
            throw APIError.stage("attempt '\(a.id)' is no longer the current attempt of round \(a.round)", stage: s.stage)
        }
        guard pipeline.hasRoom else { throw APIError.unavailable("the assessment queue is full", retryAfterS: pipeline.retryAfterSeconds) }
        try db.run("""
            UPDATE attempts SET status = 'queued', retryable = 0, reason = NULL, submitted_at = ?, assessed_at = NULL WHERE id = ?
            """, .int(c.nowMs), .text(a.id))
        try setStage(s.id, "round\(a.round)_processing")
        pipeline.enqueue(a.id)
        guard let updated = try loadAttempt(a.id) else { throw APIError.internalError("attempt vanished") }
        return .json(202, updated.json)
    }

    /// `GET /attempts/{id}/exemplar`: a model answer, `pending` until `exemplarDelayMs` after the
    /// assessment, then `ready` with the article text. 409 before the attempt is assessed.
    func exemplar(_ c: inout RequestContext) throws -> Reply {
        let a = try ownedAttempt(c.param("id"), c)
        guard a.status == "assessed", let assessedAt = a.assessedAt else {
            throw APIError.stage("the exemplar exists once the attempt is assessed (it is \(a.status))")
        }
        guard c.nowMs >= assessedAt + Int64(settings.exemplarDelayMs) else { return .json(200, ["status": "pending"]) }
        let s = try ownedSession(a.sessionID, c)
        let text = catalog.article(s.articleID)?.body ?? ""
        return .json(200, ["status": "ready", "text": .string(text)])
    }

    /// `GET /attempts/{id}/audio` → a signed, expiring URL of the recording, or `410 gone` once
    /// the retention has passed.
    func audio(_ c: inout RequestContext) throws -> Reply {
        let a = try ownedAttempt(c.param("id"), c)
        guard let uploadedAt = try db.queryOne("SELECT uploaded_at FROM uploads WHERE attempt_id = ?", .text(a.id))?.int(0) else {
            throw APIError.notFound("audio of attempt '\(a.id)'")
        }
        guard c.nowMs < uploadedAt + Int64(settings.audioRetentionS) * 1000 else {
            throw APIError(status: 410, code: "gone", message: "the recording has expired", retryable: false)
        }
        let exp = c.nowMs / 1000 + 300
        let path = "/media/\(a.id)"
        let url = baseURL + path + "?" + uploads.query(method: "GET", path: path, size: a.sizeBytes, expiresAtS: exp)
        return .json(200, ["url": .string(url), "expires_at": .string(RFC3339.format(millis: exp * 1000))])
    }

    /// `GET /media/{id}?…&sig=`: the recording's bytes for a signed URL (403 forged or expired, 410 purged).
    func media(_ c: inout RequestContext) throws -> Reply {
        let path = "/media/" + c.param("id")
        do { _ = try uploads.verify(method: "GET", path: path, query: c.request.query, nowMs: c.nowMs) } catch {
            throw APIError.forbidden(error == .expired ? "the audio URL has expired" : "the audio URL is not validly signed")
        }
        guard let row = try db.queryOne("""
            SELECT u.uploaded_at, a.content_type FROM uploads u JOIN attempts a ON a.id = u.attempt_id WHERE u.attempt_id = ?
            """, .text(c.param("id"))), c.nowMs < row.int(0) + Int64(settings.audioRetentionS) * 1000,
            let bytes = audio.read(c.param("id")) else {
            throw APIError(status: 410, code: "gone", message: "the recording is no longer available", retryable: false)
        }
        return Reply(status: 200, body: bytes, headers: [HeaderField(name: "Content-Type", value: row.text(1))], rawBody: true)
    }

    /// `POST /assessments/{id}/feedback {helpful, comment?}` → 204 (the last answer counts).
    func feedback(_ c: inout RequestContext) throws -> Reply {
        let id = c.param("id")
        guard let owner = try db.queryOne("SELECT user_id FROM attempts WHERE assessment_id = ?", .text(id))?.text(0) else {
            throw APIError.notFound("assessment '\(id)'")
        }
        guard owner == c.user.id else { throw APIError.forbidden("assessment '\(id)' belongs to another user") }
        guard let helpful = c.body["helpful"]?.bool else { throw APIError.invalid("'helpful' must be a boolean") }
        let comment = try c.optionalString("comment", maxLength: 2000)
        try db.run("INSERT OR REPLACE INTO feedback (assessment_id, user_id, helpful, comment, created_at) VALUES (?, ?, ?, ?, ?)",
                   .text(id), .text(c.user.id), .int(helpful ? 1 : 0), .optionalText(comment), .int(c.nowMs))
        return .empty(204)
    }
}
