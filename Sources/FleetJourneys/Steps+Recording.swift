import FleetClient
import FleetCore
import FleetHTTP

/// The recording loop shared by the diagnostic, the daily quest and free practice:
/// record → `POST attempts` → `PUT` upload → `POST submit` → poll until terminal.
extension VirtualUser {
    /// Records and submits one round, re-recording after `unreliable` (up to the behaviour's
    /// limit), and returns the assessed attempt. Measures `assessment_turnaround` (submit's 202 →
    /// first poll that sees a terminal status) and, when the stack reports both timestamps,
    /// `assessment_turnaround_server`.
    public func recordRound(session: SessionInfo, round: Int) async throws(JourneyStop) -> AttemptInfo {
        var tries = 0
        while true {
            let attempt = try await recordAndSubmit(session: session, round: round)
            switch attempt.status {
            case "assessed":
                return attempt
            case "unreliable" where tries < world.behaviour.maxReRecords:
                tries += 1
                reach("round\(round)_rerecord")
                continue
            default:
                throw .failed(step: step, code: "attempt_\(attempt.status)", message: attempt.reason ?? attempt.status)
            }
        }
    }

    /// One take: the user speaks for the clip's length (scaled), then uploads and waits.
    func recordAndSubmit(session: SessionInfo, round: Int) async throws(JourneyStop) -> AttemptInfo {
        reach("round\(round)_record")
        guard let rec = world.recordings.pick(language: session.language.isEmpty ? "en" : session.language, round: round,
                                              classMix: world.behaviour.clipMix, random: &random) else {
            throw .failed(step: step, code: "no_recording", message: "no clip for \(session.language) round \(round)")
        }
        try await pause(ms: Double(min(rec.durationMs, 90_000)) * world.behaviour.timeScale)

        reach("round\(round)_upload")
        let key = newKey()
        let ticket = try expect(await client.createAttempt(
            session: session.id, round: round, sha256: rec.sha256, sizeBytes: rec.sizeBytes, contentType: rec.contentType,
            durationMs: min(rec.durationMs, 90_000), key: key, credentials, intended: nextIntended, random: &random))
        let headers = ticket.headers.map { HTTPHeader($0.0, $0.1) }
        _ = try expect(await client.upload(url: ticket.url, method: ticket.method, headers: headers, body: rec.body,
                                           intended: nextIntended))

        reach("round\(round)_submit")
        let submitted = try expect(await client.submit(attempt: ticket.attemptId, credentials, intended: nextIntended,
                                                       random: &random))
        return try await poll(attempt: submitted, round: round)
    }

    /// Polls `GET /attempts/{id}` from `poll.initial_ms`, backing off to `poll.max_ms`, until a
    /// terminal status; past `give_up_ms` the user "checks later" (abandons; the session stays resumable).
    func poll(attempt submitted: AttemptInfo, round: Int) async throws(JourneyStop) -> AttemptInfo {
        reach("round\(round)_processing")
        let acceptedAt = MonotonicClock.now()
        let policy = device.poll
        var interval = policy.initialMs
        var current = submitted
        while !current.isTerminal {
            if Double(MonotonicClock.now() - acceptedAt) / 1e6 > policy.giveUpMs {
                throw .abandoned(step: step, reason: "check_later")
            }
            try await pause(ms: interval)
            interval = min(policy.maxMs, interval * 1.5)
            current = try expect(await client.attempt(submitted.id, credentials, intended: nextIntended, random: &random))
        }
        let seen = MonotonicClock.now()
        let metricEnd = submitted.isTerminal ? acceptedAt : seen
        world.recorder.recordLatency("assessment_turnaround", intended: acceptedAt, actual: acceptedAt, end: metricEnd,
                                     failed: current.status != "assessed")
        if let s = current.submittedAtMillis, let a = current.assessedAtMillis, a >= s {
            world.recorder.recordValue("assessment_turnaround_server", micros: (a - s) * 1000, at: seen)
        }
        return current
    }
}
