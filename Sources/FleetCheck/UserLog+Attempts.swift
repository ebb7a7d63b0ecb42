import FleetClient
import FleetCore
import FleetMetrics

/// `one_terminal_status`: an attempt, once seen terminal, stays that status until a retry is sent;
/// every submitted attempt becomes terminal (the audit polls those never seen so).
extension UserLog {
    static let attemptStatuses: Set<String> = ["awaiting_upload", "queued", "transcribing", "assessing", "assessed", "failed", "unreliable"]
    static let terminalStatuses: Set<String> = ["assessed", "failed", "unreliable"]

    mutating func attemptCreated(_ e: Exchange, session: String?) {
        guard e.succeeded, let id = e.body?["attempt_id"]?.string else { return }
        if attempts[id] == nil { attempts[id] = AttemptFacts(session: session, createdAt: e.received) }
    }

    /// A retry went out: the attempt may leave its terminal status (`failed` → queued).
    mutating func retrySent(attempt id: String) {
        attempts[id]?.terminal = nil
    }

    mutating func attemptAnswered(attempt id: String, _ e: Exchange, seen: Seen, isSubmit: Bool) -> [Finding] {
        guard e.succeeded, let body = e.body, let status = body["status"]?.string else { return [] }
        // The facts changed in place: one lookup of the id, where a read and a write-back hashed
        // it twice and copied the facts out and in.
        return Self.answered(&attempts[id, default: AttemptFacts(session: body["session_id"]?.string, createdAt: e.received)],
                             attempt: id, status: status, seen: seen, isSubmit: isSubmit)
    }

    private static func answered(_ facts: inout AttemptFacts, attempt id: String, status: String, seen: Seen,
                                 isSubmit: Bool) -> [Finding] {
        if isSubmit, facts.submitted == nil { facts.submitted = seen }
        facts.lastStatus = status
        guard Self.attemptStatuses.contains(status) else {
            return [Finding(invariant: .oneTerminalStatus, detail: "attempt \(id): status '\(status)' is none the contract names",
                            seqs: [seen.seq])]
        }
        if let t = facts.terminal, seen.sent > t.seen.received, status != t.status {
            return [Finding(invariant: .oneTerminalStatus,
                            detail: "attempt \(id) was \(t.status) (#\(t.seen.seq)) and is now \(status) with no retry in between",
                            seqs: [t.seen.seq, seen.seq])]
        }
        if Self.terminalStatuses.contains(status), facts.terminal == nil { facts.terminal = (status, seen) }
        return []
    }

    /// Attempts submitted (a `202` seen) and never seen terminal: what the audit polls.
    var attemptsAwaitingTerminal: [String] {
        attempts.filter { $0.value.submitted != nil && $0.value.terminal == nil }.map(\.key).sorted()
    }
}
