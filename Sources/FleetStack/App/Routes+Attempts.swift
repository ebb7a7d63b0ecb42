import FleetCore
import FleetSQLite

/// The recording loop: presigned uploads, the upload itself, submit and polling.
extension StackApp {
    /// The attempt `id` if it belongs to the caller: 404 when unknown, 403 when someone else's.
    func ownedAttempt(_ id: String, _ c: RequestContext) throws -> AttemptRow {
        guard let a = try loadAttempt(id) else { throw APIError.notFound("attempt '\(id)'") }
        guard a.userID == c.user.id else { throw APIError.forbidden("attempt '\(id)' belongs to another user") }
        return a
    }

    func loadAttempt(_ id: String) throws -> AttemptRow? {
        try db.queryOne("SELECT \(AttemptRow.columns) FROM attempts WHERE id = ?", .text(id)).map(AttemptRow.init)
    }

    /// The `upload` object: an absolute URL on this server, signed over method, path, size and expiry.
    func uploadTicket(_ a: AttemptRow, nowMs: Int64) -> JSONValue {
        let exp = nowMs / 1000 + Int64(settings.uploadURLLifetimeS)
        let path = "/uploads/\(a.id)"
        let url = baseURL + path + "?" + uploads.query(method: "PUT", path: path, size: a.sizeBytes, expiresAtS: exp)
        return [
            "url": .string(url), "method": "PUT",
            "headers": ["Content-Type": .string(a.contentType)],
            "expires_at": .string(RFC3339.format(millis: exp * 1000)),
        ]
    }

    /// `POST /sessions/{id}/attempts`: a new attempt for the stage's round with a fresh upload URL;
    /// the same Idempotency-Key returns the same attempt with a newly signed URL.
    func createAttempt(_ c: inout RequestContext) throws -> Reply {
        let key = try idempotencyKey(c)
        let s = try ownedSession(c.param("id"), c)
        let hash = bodyHash(c)
        if let a = try db.queryOne("SELECT \(AttemptRow.columns) FROM attempts WHERE session_id = ? AND idem_key = ?",
                                   .text(s.id), .text(key)).map(AttemptRow.init) {
            guard a.bodyHash == hash else { throw APIError.idempotencyConflict }
            return .json(201, ["attempt_id": .string(a.id), "upload": uploadTicket(a, nowMs: c.nowMs)])
        }
        let round = try c.int("round", in: 1...2)
        let sha = try c.string("sha256", maxLength: 64).lowercased()
        guard sha.utf8.count == 64, Hex.decode(sha) != nil else { throw APIError.invalid("'sha256' must be 64 hex digits") }
        guard let sizeValue = c.body["size_bytes"]?.int else { throw APIError.invalid("'size_bytes' is required (an integer)") }
        guard sizeValue >= 1 else { throw APIError.invalid("'size_bytes' must be ≥ 1") }
        guard sizeValue <= settings.maxUploadBytes else {
            throw APIError.payloadTooLarge("'size_bytes' \(sizeValue) is over the limit of \(settings.maxUploadBytes) bytes")
        }
        let contentType = try c.string("content_type", maxLength: 100)
        guard contentType.lowercased().hasPrefix("audio/") else {
            throw APIError.invalid("'content_type' must be audio/*, got '\(contentType)'")
        }
        let duration = try c.int("duration_ms", in: 0...92_000)
        guard round <= s.roundCount else { throw APIError.stage("a \(s.kind) session has only round 1", stage: s.stage) }
        guard s.stage == "round\(round)" else {
            throw APIError.stage("round \(round) cannot be recorded while the session is in stage '\(s.stage)'", stage: s.stage)
        }
        let id = IDs.make("att")
        try db.run("""
            INSERT INTO attempts (id, session_id, user_id, round, idem_key, body_hash, sha256, size_bytes, content_type,
                                  duration_ms, status, created_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'awaiting_upload', ?)
            """, .text(id), .text(s.id), .text(c.user.id), .int(Int64(round)), .text(key), .text(hash), .text(sha),
                   .int(Int64(sizeValue)), .text(contentType), .int(Int64(duration)), .int(c.nowMs))
        guard let a = try loadAttempt(id) else { throw APIError.internalError("attempt vanished") }
        return .json(201, ["attempt_id": .string(a.id), "upload": uploadTicket(a, nowMs: c.nowMs)])
    }

    /// `PUT /uploads/{id}?size&expires&sig`: stores (or replaces) the attempt's audio. The URL is the
    /// credential: missing, forged or expired → 403, and so is a body whose length is not the
    /// signed size (as a signed content-length would be on object storage).
    func upload(_ c: inout RequestContext) throws -> Reply {
        let path = "/uploads/" + c.param("id")
        let signedSize: Int
        do { signedSize = try uploads.verify(method: "PUT", path: path, query: c.request.query, nowMs: c.nowMs) } catch {
            switch error {
            case .expired: throw APIError.forbidden("the upload URL has expired; request a new one")
            case .forged: throw APIError.forbidden("the upload URL signature does not match")
            case .missing: throw APIError.forbidden("the upload URL is not signed")
            }
        }
        guard c.request.body.count == signedSize else {
            throw APIError.forbidden("the body has \(c.request.body.count) bytes but the URL was signed for \(signedSize)")
        }
        guard let a = try loadAttempt(c.param("id")) else { throw APIError.notFound("attempt '\(c.param("id"))'") }
        guard a.status == "awaiting_upload" else {
            throw APIError.stage("attempt '\(a.id)' was already submitted (\(a.status)); its audio can no longer change")
        }
        // The bytes were hashed and written off this queue; the digest is kept for submit's check.
        let staged = try c.stagedUpload ?? audio.stage(c.request.body)
        c.stagedUpload = nil
        try audio.commit(staged, attemptID: a.id)
        try db.run("INSERT OR REPLACE INTO uploads (attempt_id, sha256, size_bytes, uploaded_at) VALUES (?, ?, ?, ?)",
                   .text(a.id), .text(c.uploadSHA256 ?? SHA256.hex(c.request.body)), .int(Int64(c.request.body.count)), .int(c.nowMs))
        return .empty(204)
    }

    /// `POST /attempts/{id}/submit`: queues the upload for assessment. Idempotent once submitted.
    func submit(_ c: inout RequestContext) throws -> Reply {
        let a = try ownedAttempt(c.param("id"), c)
        guard a.status == "awaiting_upload" else { return .json(202, a.json) }
        let s = try ownedSession(a.sessionID, c)
        guard s.stage == "round\(a.round)", try currentAttempt(sessionID: s.id, round: a.round)?.id == a.id else {
            throw APIError.stage("attempt '\(a.id)' is not the current attempt of round \(a.round) (stage '\(s.stage)')", stage: s.stage)
        }
        guard let digest = try db.queryOne("SELECT sha256 FROM uploads WHERE attempt_id = ?", .text(a.id))?.text(0) else {
            throw APIError(status: 409, code: "upload_missing", message: "nothing was uploaded for attempt '\(a.id)'", retryable: false)
        }
        guard digest == a.sha256 else {
            throw APIError(status: 400, code: "upload_checksum_mismatch",
                           message: "the uploaded bytes have sha256 \(digest), not the declared \(a.sha256)", retryable: false)
        }
        guard pipeline.hasRoom else {
            throw APIError.unavailable("the assessment queue is full", retryAfterS: pipeline.retryAfterSeconds)
        }
        try db.run("UPDATE attempts SET status = 'queued', submitted_at = ? WHERE id = ?", .int(c.nowMs), .text(a.id))
        try setStage(s.id, "round\(a.round)_processing")
        // The `lost-submit` bug acknowledges some submits and never queues them.
        if !(settings.bug(.lostSubmit) && faults.chance(settings.lostSubmitFraction)) { pipeline.enqueue(a.id) }
        guard let updated = try loadAttempt(a.id) else { throw APIError.internalError("attempt vanished") }
        return .json(202, updated.json)
    }

    /// `GET /attempts/{id}`.
    func getAttempt(_ c: inout RequestContext) throws -> Reply {
        .json(200, try ownedAttempt(c.param("id"), c).json)
    }
}
