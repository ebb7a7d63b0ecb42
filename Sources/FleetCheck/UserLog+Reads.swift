import FleetClient
import FleetCore
import FleetMetrics

/// What was known when `DELETE /me/training-data` was answered.
struct DeletionFacts: Sendable {
    var seen: Seen
    var sessions: Set<String>
    var attempts: Set<String>
    /// Sessions whose complete was answered after the deletion went out (they may count again).
    var settledSince: Set<String> = []
}

/// `user_isolation` (passive: ids of other users in this user's answers), `deletion_complete` and
/// `resume_in_progress`, judged on reads.
extension UserLog {
    static let inProgressStages: Set<String> = ["reading", "round1", "round1_processing", "round2", "round2_processing"]

    mutating func sessionSeen(_ body: JSONValue?, at: UInt64) {
        guard let id = body?["id"]?.string else { return }
        // Changed in place (one hash of the id): a read and a write-back hashed it twice.
        let kind = body?["kind"]?.string
        Self.seen(&sessions[id, default: SessionFacts(createdAt: at)], kind: kind)
    }

    private static func seen(_ f: inout SessionFacts, kind: String?) {
        if let kind { f.kind = kind }
    }

    /// A session answer (GET, reading-complete, abandon) saying completed or abandoned.
    mutating func sessionStage(_ id: String, _ stage: String?, seen: Seen) {
        guard let stage, stage == "completed" || stage == "abandoned", sessions[id]?.finished == nil else { return }
        sessions[id, default: SessionFacts(createdAt: seen.received)].finished = seen
    }

    mutating func deletionAnswered(_ e: Exchange, seen: Seen) {
        guard e.succeeded else { return }
        let earlierSessions = Set(sessions.filter { $0.value.createdAt < e.sent }.map(\.key))
        let earlierAttempts = Set(attempts.filter { $0.value.createdAt < e.sent }.map(\.key))
        var d = DeletionFacts(seen: seen, sessions: earlierSessions, attempts: earlierAttempts)
        if let prior = deletion { d.sessions.formUnion(prior.sessions); d.attempts.formUnion(prior.attempts) }
        deletion = d
        for id in earlierSessions { sessions.removeValue(forKey: id) }
        for id in earlierAttempts { attempts.removeValue(forKey: id) }
        xpBaseline = nil
        streak = .unknown
    }

    mutating func settledAfterDeletion(session: String, _ e: Exchange) {
        guard var d = deletion, e.received > d.seen.sent else { return }
        d.settledSince.insert(session)
        deletion = d
    }

    /// An answer to a request sent after the deletion was answered must not show anything earlier.
    func deletedShown(_ e: Exchange, seen: Seen) -> [Finding] {
        guard let d = deletion, e.sent > d.seen.received, e.succeeded else { return [] }
        func found(_ what: String) -> [Finding] {
            [Finding(invariant: .deletionComplete, detail: "after DELETE /me/training-data (#\(d.seen.seq)): \(what)",
                     seqs: [d.seen.seq, seen.seq])]
        }
        let id = e.pathID
        switch e.route {
        case .getSession where id.map(d.sessions.contains) == true:
            return found("GET /sessions/\(id!) answered \(e.status!) for a deleted session")
        case .getAttempt, .getAttemptAudio, .getExemplar:
            if let id, d.attempts.contains(id) { return found("\(e.template) answered \(e.status!) for deleted attempt \(id)") }
        case .getHome:
            for key in ["resume_session", "today_quest"] {
                let sid = key == "resume_session" ? e.body?[key]?["id"]?.string : e.body?[key]?["session_id"]?.string
                if let sid, d.sessions.contains(sid) { return found("GET /home's \(key) is deleted session \(sid)") }
            }
        case .getGrowth:
            for r in e.body?["recent"]?.array ?? [] {
                if let sid = r["session_id"]?.string, d.sessions.contains(sid) { return found("GET /growth lists deleted session \(sid)") }
            }
            let counted = (e.body?["weeks"]?.array ?? []).reduce(0) { $0 + ($1["sessions"]?.int ?? 0) }
            if counted > d.settledSince.count {
                return found("GET /growth counts \(counted) sessions; at most \(d.settledSince.count) were settled since")
            }
        case .getMe:
            let stats = e.body?["stats"]
            let done = stats?["sessions_completed"]?.int ?? 0
            if done > d.settledSince.count {
                return found("stats.sessions_completed \(done); at most \(d.settledSince.count) sessions were settled since")
            }
            if d.settledSince.isEmpty, let xp = stats?["xp"]?.int, let streak = stats?["streak"]?.int, xp != 0 || streak != 0 {
                return found("stats xp \(xp) streak \(streak), expected 0 and 0 with nothing settled since")
            }
        default: break
        }
        return []
    }

    /// `GET /home`'s resume_session must be in progress, and not a session this user saw finish.
    func resumeShown(_ e: Exchange, seen: Seen) -> [Finding] {
        guard e.succeeded, let r = e.body?["resume_session"], let id = r["id"]?.string else { return [] }
        let stage = r["stage"]?.string ?? "?"
        if !Self.inProgressStages.contains(stage) {
            return [Finding(invariant: .resumeInProgress, detail: "GET /home offers session \(id) to resume with stage '\(stage)'",
                            seqs: [seen.seq])]
        }
        if let f = sessions[id]?.finished, f.received < e.sent {
            return [Finding(invariant: .resumeInProgress,
                            detail: "GET /home offers session \(id) to resume (stage '\(stage)'), which was finished (#\(f.seq))",
                            seqs: [f.seq, seen.seq])]
        }
        return []
    }

    /// Session ids in this user's answers that the registry says belong to another user.
    static func sessionIDsShown(_ e: Exchange) -> [String] {
        switch e.route {
        case .getHome:
            return [e.body?["resume_session"]?["id"]?.string, e.body?["today_quest"]?["session_id"]?.string].compactMap { $0 }
        case .getGrowth:
            return (e.body?["recent"]?.array ?? []).compactMap { $0["session_id"]?.string }
        default: return []
        }
    }
}
