import FleetClient
import FleetCore
import FleetHTTP

/// The recording loop shared by the diagnostic, the daily quest and free practice:
/// record → persist → `POST attempts` → `PUT` upload → `POST submit` → poll until terminal.
///
/// Every take is persisted in `device.uploadQueue` before its first request (flow 6: "persist file
/// + attempt metadata") and leaves it once submitted, so that an app killed anywhere in between
/// finds it on relaunch (`drainUploadQueue`).
extension VirtualUser {
    /// One take: the user speaks for the clip's length (scaled), then uploads and waits.
    /// `cutUpload` loses the network in the middle of its PUT (flow 6); the profile's
    /// `offline_rate` cuts others at random.
    @inline(never)  // async steps are not inlined: see VirtualUser (frames)
    func recordAndSubmit(session: SessionInfo, round: Int, cutUpload: Bool = false) async throws(JourneyStop) -> AttemptInfo {
        reach(round: round, "record")
        // A session without a language (a lax server) records in the device's practice language.
        let language = session.language.isEmpty ? device.languages.practiceLanguage(forLocale: credentials.locale) : session.language
        guard let rec = world.recordings.pick(language: language, round: round,
                                              classMix: world.behaviour.clipMix, random: &random) else {
            throw .failed(step: step, code: "no_recording", message: "no clip for \(session.language) round \(round)")
        }
        device.partialRecording = PartialRecording(sessionId: session.id, round: round)
        try await pause(ms: Double(min(rec.durationMs, 90_000)) * world.behaviour.timeScale)
        device.partialRecording = nil

        reach(round: round, "upload")
        let key = newKey()
        device.uploadQueue.append(PendingUpload(sessionId: session.id, round: round, idempotencyKey: key, recording: rec,
                                                attemptId: nil, uploaded: false))
        var ticket = try await requestUpload(session: session.id, round: round, recording: rec, key: key)
        let offlineRate = world.behaviour.offlineRate
        if cutUpload || (offlineRate > 0 && random.chance(offlineRate)) {
            ticket = try await cutAndReconnect(ticket, session: session.id, round: round, recording: rec, key: key)
        }
        try await putUpload(ticket, session: session.id, round: round, recording: rec, key: key)

        reach(round: round, "submit")
        var submitted = await client.submit(attempt: ticket.attemptId, credentials, intended: nextIntended, random: &random)
        if case let .failure(e) = submitted, e.code == "upload_checksum_mismatch" {
            // Flow 6 step 3: the stored bytes are not ours; put the same file once more, then give up.
            reach(round: round, "reupload")
            try await putUpload(ticket, session: session.id, round: round, recording: rec, key: key)
            submitted = await client.submit(attempt: ticket.attemptId, credentials, intended: nextIntended, random: &random)
        }
        let accepted = try expect(submitted)
        device.uploadQueue.removeAll { $0.idempotencyKey == key }
        return try await poll(attempt: accepted, round: round)
    }

    /// `POST /sessions/{id}/attempts` under the take's key; the attempt id goes to the queue entry.
    @inline(never)
    func requestUpload(session: String, round: Int, recording rec: Recording, key: String) async throws(JourneyStop) -> UploadTicket {
        let ticket = try expect(await client.createAttempt(
            session: session, round: round, sha256: rec.sha256, sizeBytes: rec.sizeBytes, contentType: rec.contentType,
            durationMs: min(rec.durationMs, 90_000), key: key, credentials, intended: nextIntended, random: &random))
        if let i = device.uploadQueue.firstIndex(where: { $0.idempotencyKey == key }) { device.uploadQueue[i].attemptId = ticket.attemptId }
        return ticket
    }

    /// `PUT` to the presigned URL. A refused URL (`403`: it expired meanwhile) gets one fresh
    /// presign under the same key and one more `PUT`.
    @inline(never)
    func putUpload(_ ticket: UploadTicket, session: String, round: Int, recording rec: Recording, key: String) async throws(JourneyStop) {
        var result = await client.upload(url: ticket.url, method: ticket.method, headers: ticket.httpHeaders, body: rec.body,
                                         intended: nextIntended, random: &random)
        if case let .failure(e) = result, e.status == 403 {
            let fresh = try await requestUpload(session: session, round: round, recording: rec, key: key)
            result = await client.upload(url: fresh.url, method: fresh.method, headers: fresh.httpHeaders, body: rec.body,
                                         intended: nextIntended, random: &random)
        }
        _ = try expect(result)
        if let i = device.uploadQueue.firstIndex(where: { $0.idempotencyKey == key }) { device.uploadQueue[i].uploaded = true }
    }

    /// Flow 6: the network dies at a random byte of the PUT; the user waits offline for the
    /// profile's offline time; back online, the presign is requested again (same key) if its
    /// `expires_at` passed. Returns the ticket to upload with.
    @inline(never)  // async steps are not inlined: see VirtualUser (frames)
    func cutAndReconnect(_ ticket: UploadTicket, session: String, round: Int, recording rec: Recording,
                         key: String) async throws(JourneyStop) -> UploadTicket {
        let cutAt = 1 + Int(random.unit() * Double(max(1, rec.sizeBytes - 1)))
        let cut = await client.upload(url: ticket.url, method: ticket.method, headers: ticket.httpHeaders, body: rec.body,
                                      abortAfterBytes: cutAt, intended: nextIntended, random: &random)
        if Task.isCancelled { throw .interrupted(step: step) }
        if case let .failure(e) = cut, !e.isAborted { throw stop(for: e) }
        reach(round: round, "offline")
        world.recorder.count(.uploadsCut)
        try await pause(ms: world.behaviour.offlineDuration.sample(&random))
        reach(round: round, "reconnect")
        if let expires = ticket.expiresAtMillis, WallClock.nowMillis() >= expires {
            reach(round: round, "represign")
            return try await requestUpload(session: session, round: round, recording: rec, key: key)
        }
        return ticket
    }

    /// Polls `GET /attempts/{id}` from `poll.initial_ms`, backing off to `poll.max_ms`, until a
    /// terminal status; past `give_up_ms` the user "checks later" (abandons; the session stays
    /// resumable). `measured: false` (a resumed session) leaves `assessment_turnaround` alone: its
    /// submit's 202 was seen by an app that has since died.
    @inline(never)
    func poll(attempt submitted: AttemptInfo, round: Int, measured: Bool = true) async throws(JourneyStop) -> AttemptInfo {
        reach(round: round, "processing")
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
        guard measured else { return current }
        let seen = MonotonicClock.now()
        let metricEnd = submitted.isTerminal ? acceptedAt : seen
        world.recorder.recordLatency(.assessmentTurnaround, intended: acceptedAt, actual: acceptedAt, end: metricEnd,
                                     failed: current.status != "assessed")
        if let s = current.submittedAtMillis, let a = current.assessedAtMillis, a >= s {
            world.recorder.recordValue(.assessmentTurnaroundServer, micros: (a - s) * 1000, at: seen)
        }
        return current
    }
}

extension UploadTicket {
    /// The presign's headers as the engine sends them.
    var httpHeaders: [HTTPHeader] { headers.map { HTTPHeader($0.0, $0.1) } }
}
