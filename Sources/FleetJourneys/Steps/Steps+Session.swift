import FleetClient
import FleetCore

/// Where a daily or free session goes next, as the app decides from the server's `stage`.
enum SessionStep: Equatable {
    case read
    case record(Int)
    /// The round's attempt was submitted; poll it (a resumed app did not see the 202).
    case processing(Int)
    /// Round 2 is assessed: `POST /complete`.
    case settle
    /// The stack says completed but this app never saw the settlement: replay it.
    case replay
    case abandoned

    /// Flow 4's routing: reading → read; round1/round2 → record; *_processing → processing;
    /// completed → complete replayed. `round2_processing` with an assessed round 2 is ready to settle.
    init?(_ s: SessionInfo, round2Assessed: Bool = false) {
        switch s.stage {
        case "reading": self = .read
        case "round1": self = .record(1)
        case "round2": self = .record(2)
        case "round1_processing": self = .processing(1)
        case "round2_processing": self = round2Assessed ? .settle : .processing(2)
        case "completed": self = .replay
        case "abandoned": self = .abandoned
        default: return nil
        }
    }
}

/// The body of a session from any stage to its settlement, shared by every journey that practises:
/// the daily quest, resume after a kill, offline upload, expiry, first launch's first session,
/// free practice, permission denied and change languages.
extension VirtualUser {
    /// Plays `session` from its stage to settlement: read, round 1, feedback, round 2, complete.
    /// A `409 stage_precondition` anywhere refetches the session and routes by its stage again
    /// (flow 2 step 6, flow 4 step 2). `cutRound` loses the network during that round's upload.
    /// `micGrant`, when given, taps the microphone before each round (flow 5: the first tap asks,
    /// answered "Allow" with that probability; a denial shows the permission-denied screen);
    /// nil records at once, as for a user whose microphone was settled before this session.
    /// Returns nil for a diagnostic (one round; it completes itself when assessed).
    @discardableResult
    public func playSession(_ start: SessionInfo, cutRound: Int? = nil,
                            micGrant: Double? = nil) async throws(JourneyStop) -> SettlementInfo? {
        var session = start
        guard var next = SessionStep(session) else {
            throw .failed(step: step, code: "unknown_stage", message: "session \(session.id) has stage '\(session.stage)'")
        }
        var assessedSeen = MonotonicClock.now()
        var refetches = 0
        // Each pass moves at least one stage or refetches; 24 bounds a stack that loops.
        for _ in 0..<24 {
            do throws(JourneyStop) {
                switch next {
                case .read:
                    try await think("read")
                    reach("reading_complete")
                    session = try expect(await client.readingComplete(session.id, credentials, intended: nextIntended,
                                                                      random: &random))
                    next = SessionStep(session) ?? .record(1)
                    if next == .read { next = .record(1) }
                case let .record(round):
                    if round == 2 { try await think("compress") }
                    if let micGrant { try await microphoneReady(grantDefault: micGrant) }
                    let attempt = try await recordRoundRecovering(session: session, round: round, cutUpload: cutRound == round)
                    guard let after = try await afterAssessed(attempt, round: round, kind: session.kind, &assessedSeen) else { return nil }
                    next = after
                case let .processing(round):
                    guard let id = session.roundAttempts[round] else { next = .record(round); continue }
                    let current = try expect(await client.attempt(id, credentials, intended: nextIntended, random: &random))
                    let attempt = try await poll(attempt: current, round: round, measured: false)
                    if attempt.status == "assessed" {
                        guard let after = try await afterAssessed(attempt, round: round, kind: session.kind, &assessedSeen) else { return nil }
                        next = after
                    } else {
                        // failed / unreliable sent the stage back to the round: record it again.
                        next = .record(round)
                    }
                case .settle:
                    try await think("complete")
                    return try await settle(session: session, since: assessedSeen)
                case .replay:
                    return try await settle(session: session, since: MonotonicClock.now(), replay: true)
                case .abandoned:
                    throw JourneyStop.abandoned(step: step, reason: "session_abandoned")
                }
            } catch .failed(_, "stage_precondition", _) where refetches < 3 {
                refetches += 1
                reach("refetch_session")
                session = try expect(await client.session(session.id, credentials, intended: nextIntended, random: &random))
                guard let routed = SessionStep(session) else {
                    throw .failed(step: step, code: "unknown_stage", message: "session \(session.id) has stage '\(session.stage)'")
                }
                next = routed
            }
        }
        throw .failed(step: step, code: "session_loop", message: "session \(session.id) did not settle within 24 steps")
    }

    /// After an assessed round: round 1 shows the feedback, round 2 goes to settlement.
    @inline(never)  // async steps are not inlined: see VirtualUser (frames)
    private func afterAssessed(_ attempt: AttemptInfo, round: Int, kind: String,
                               _ assessedSeen: inout UInt64) async throws(JourneyStop) -> SessionStep? {
        if kind == "diagnostic" { return nil }
        if round == 1 {
            try await reviewFeedback(attempt)
            return .record(2)
        }
        assessedSeen = MonotonicClock.now()
        return .settle
    }

    /// Flow 2 step 5: the exemplar is polled while pending, the evidence audio is fetched on a
    /// share of users (`410` → expired), the assessment is rated on another share. None of these
    /// failing ends the journey (the screen shows text + retry, a toast), but a kill does.
    @inline(never)  // async steps are not inlined: see VirtualUser (frames)
    public func reviewFeedback(_ attempt: AttemptInfo) async throws(JourneyStop) {
        reach("feedback")
        let started = MonotonicClock.now()
        var interval = device.poll.initialMs
        exemplar: while true {
            switch await client.exemplar(attempt: attempt.id, credentials, intended: nextIntended, random: &random) {
            case let .success(ex):
                nextIntended = MonotonicClock.now()
                guard ex.status == "pending" else { break exemplar }
                // The screen keeps the text; stop polling where processing would give up.
                if Double(MonotonicClock.now() - started) / 1e6 + interval > device.poll.giveUpMs { break exemplar }
                try await pause(ms: interval)
                interval = min(device.poll.maxMs, interval * 1.5)
            case let .failure(e):
                if e.isAborted || Task.isCancelled { throw stop(for: e) }
                reach("exemplar_failed")
                break exemplar
            }
        }
        if decide("fetch_evidence", default: 0.3) {
            reach("evidence")
            switch await client.evidenceAudio(attempt: attempt.id, credentials, intended: nextIntended, random: &random) {
            case .success: nextIntended = MonotonicClock.now()
            case let .failure(e) where e.status == 410: _ = e; reach("evidence_expired")
            case let .failure(e): if e.isAborted || Task.isCancelled { throw stop(for: e) }
            }
        }
        try await think("feedback")
        if let assessment = attempt.assessmentId, decide("rate_feedback", default: 0.5) {
            reach("rate_feedback")
            let helpful = decide("helpful", default: 0.8)
            if case let .failure(e) = await client.postFeedback(assessment: assessment, helpful: helpful, credentials,
                                                                 intended: nextIntended, random: &random),
               e.isAborted || Task.isCancelled {
                throw stop(for: e)
            }
            nextIntended = MonotonicClock.now()
        }
    }
}
