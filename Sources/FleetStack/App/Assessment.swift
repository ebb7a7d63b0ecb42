import FleetCore
import FleetAudio
import FleetSQLite

/// The database side of assessment: stage changes of an attempt and of its session.
/// Every function here runs on `dbQueue`.
extension StackApp {
    struct AssessmentJob: Sendable {
        let attemptID: String
        let contentType: String
        /// The digest of the stored audio, checked against the upload at submit (the audio
        /// cannot change after submit), so it keys the verdict cache.
        let sha256: String
    }

    /// queued → transcribing; returns what the worker needs, or nil when the attempt is gone.
    func beginTranscribing(_ id: String) -> AssessmentJob? {
        do {
            guard let a = try loadAttempt(id), a.status == "queued" else { return nil }
            try db.run("UPDATE attempts SET status = 'transcribing' WHERE id = ?", .text(id))
            return AssessmentJob(attemptID: id, contentType: a.contentType, sha256: a.sha256)
        } catch {
            return nil
        }
    }

    /// transcribing → assessing.
    func markAssessing(_ id: String) {
        _ = try? db.run("UPDATE attempts SET status = 'assessing' WHERE id = ? AND status = 'transcribing'", .text(id))
    }

    /// Writes the terminal status and moves the session on, in one transaction. The status is
    /// `AudioQuality.outcome` (FleetAudio keeps that mapping: clipped audio is `assessed`, with
    /// `reason: clipped` and a lower confidence); failures are never retryable unless injected.
    /// An assessed round 1 opens round 2 (daily/free) or completes the diagnostic; round 2 stays
    /// `round2_processing` until complete; failed/unreliable send the stage back to `round{n}`.
    func finishAssessment(_ id: String, verdict: AudioVerdict) {
        let now = clock.nowMs()
        _ = try? db.transaction {
            guard let a = try loadAttempt(id), a.status == "assessing" || a.status == "transcribing" else { return }
            var status = verdict.quality.outcome.rawValue
            var weakest = "fluency"
            if settings.retryableFailureFraction > 0, faults.chance(settings.retryableFailureFraction) {
                status = "failed"
                try db.run("UPDATE attempts SET status = 'failed', retryable = 1, reason = ?, assessed_at = ? WHERE id = ?",
                           .text("transient: the assessment backend timed out; retry"), .int(now), .text(id))
            } else if status == "assessed", let f = verdict.features {
                let sc = Rules.scores(f, clipped: verdict.quality == .clipped)
                weakest = [("fluency", sc.fluency), ("pronunciation", sc.pronunciation), ("completeness", sc.completeness)]
                    .min { $0.1 < $1.1 }!.0
                try db.run("""
                    UPDATE attempts SET status = 'assessed', retryable = 0, reason = ?, assessed_at = ?, assessment_id = ?,
                    overall = ?, fluency = ?, pronunciation = ?, completeness = ?, confidence = ? WHERE id = ?
                    """, verdict.quality == .clipped ? .text("clipped") : .null, .int(now), .text(IDs.make("asm")),
                           .int(Int64(sc.overall)), .int(Int64(sc.fluency)), .int(Int64(sc.pronunciation)),
                           .int(Int64(sc.completeness)), .double(sc.confidence), .text(id))
            } else {
                if status == "assessed" { status = "failed" }
                let reason = verdict.quality.rawValue + (verdict.detail.map { ": " + $0 } ?? "")
                try db.run("UPDATE attempts SET status = ?, retryable = 0, reason = ?, assessed_at = ? WHERE id = ?",
                           .text(status), .text(reason), .int(now), .text(id))
            }
            guard let s = try db.queryOne("SELECT \(SessionRow.columns) FROM sessions WHERE id = ?", .text(a.sessionID))
                .map(SessionRow.init), s.stage == "round\(a.round)_processing",
                  try currentAttempt(sessionID: s.id, round: a.round)?.id == a.id else { return }
            if status == "assessed" {
                if s.kind == "diagnostic" {
                    try setStage(s.id, "completed", completedAt: now)
                    try schedulePlan(userID: a.userID, language: s.language, weakest: weakest, nowMs: now)
                } else if a.round == 1 {
                    try setStage(s.id, "round2")
                }
            } else {
                try setStage(s.id, "round\(a.round)")
            }
        }
    }

    /// Puts attempts that were in flight when the stack last stopped back on the queue.
    func recoverPipeline() throws {
        let ids = try db.query("""
            SELECT id FROM attempts WHERE status IN ('queued', 'transcribing', 'assessing') ORDER BY submitted_at
            """).map { $0.text(0) }
        try db.run("UPDATE attempts SET status = 'queued' WHERE status IN ('transcribing', 'assessing')")
        for id in ids { pipeline.enqueue(id) }
    }
}
