import FleetClient
import FleetCore
import FleetMetrics
import Synchronization

/// The invariant checker of one virtual user (and of every device signed into its install):
/// the observer of its exchanges, its history (`UserLog`) and its trace ring.
///
/// Exchanges of one user can end concurrently (double taps, a second device), so the history is
/// behind a `Mutex`; a finding is handed to the fleet's `FleetChecker` outside no other lock.
public final class UserChecker: ExchangeObserver {
    public let index: Int
    public let scenario: String
    public let credentials: Credentials
    let fleet: FleetChecker
    private struct State {
        var log: UserLog
        var ring: TraceRing
        var seq = 0
        var journey: String
        var violated = false
    }
    private let state: Mutex<State>

    init(index: Int, scenario: String, journey: String, credentials: Credentials, fleet: FleetChecker) {
        self.index = index
        self.scenario = scenario
        self.credentials = credentials
        self.fleet = fleet
        state = Mutex(State(log: UserLog(timezone: credentials.timezone), ring: TraceRing(capacity: fleet.settings.traceRing),
                            journey: journey))
    }

    public var journey: String {
        get { state.withLock { $0.journey } }
    }

    public func setJourney(_ name: String) { state.withLock { $0.journey = name } }

    // MARK: ExchangeObserver

    public func willSend(route: Route, path: String, body: JSONValue?, at: UInt64) {
        state.withLock { $0.log.willSend(route: route, path: path, body: body) }
    }

    public func decided(_ key: String, _ value: String) {
        state.withLock { s in
            s.seq += 1
            s.ring.append(TraceEntry(seq: s.seq, intendedMs: 0, actualMs: 0, endMs: 0, what: Concat.join("decide ", key, " = ", value),
                                     path: "", status: nil, answer: .none))
        }
    }

    public func exchanged(_ e: Exchange) {
        let clock = fleet.clock
        if let d = e.serverDateMs {
            fleet.skew.observe(serverDateMs: d, sentWallMs: clock.wallMs(e.sent), receivedWallMs: clock.wallMs(e.received))
        }
        // One pass for both the digest and the excerpt: over the raw answer when it can hold no
        // secret, else over its redacted serialisation. Outside the lock: it reads only `e`.
        let answer = Redact.snippet(raw: e.rawBody, parsed: e.body, limit: 240)
        let (findings, journey, seqs) = state.withLock { s -> ([Finding], String, [Int: String]) in
            s.seq += 1
            let seen = Seen(seq: s.seq, sent: e.sent, received: e.received)
            s.ring.append(TraceEntry(seq: s.seq, intendedMs: ms(e.intended), actualMs: ms(e.sent), endMs: ms(e.received),
                                     what: e.template, path: e.path, status: e.status,
                                     answer: e.bodyBytes > 0 ? answer : answer.withoutDigest()))
            s.log.ended(route: e.route, path: e.path, body: e.requestBody)
            let found = judge(e, seen: seen, log: &s.log)
            if !found.isEmpty { s.violated = true }
            var names: [Int: String] = [:]
            for f in found { for q in f.seqs { names[q] = names[q] ?? "" } }
            for entry in names.isEmpty ? [] : s.ring.entries where names[entry.seq] != nil {
                names[entry.seq] = "#\(entry.seq) \(entry.what) → \(entry.status.map(String.init) ?? "no answer")"
            }
            return (found, s.journey, names)
        }
        for f in findings {
            fleet.report(Violation(invariant: f.invariant, user: index, scenario: scenario, journey: journey, seed: fleet.seed,
                                   firstAtS: clock.secondsSinceStart(e.received), detail: f.detail,
                                   requests: f.seqs.map { seqs[$0] ?? "#\($0)" }))
        }
    }

    private func ms(_ mono: UInt64) -> Double { fleet.clock.secondsSinceStart(mono) * 1000 }

    /// Every rule that applies to this exchange.
    private func judge(_ e: Exchange, seen: Seen, log: inout UserLog) -> [Finding] {
        var out = log.deletedShown(e, seen: seen)
        let id = e.pathID
        if let id, e.succeeded, let owner = fleet.owner(of: id), owner != index {
            out.append(Finding(invariant: .userIsolation,
                               detail: "\(e.template) on \(id), which belongs to user \(owner), answered \(e.status!) (expected 403 or 404)",
                               seqs: [seen.seq]))
            return out
        }
        for sid in UserLog.sessionIDsShown(e) {
            if let owner = fleet.owner(of: sid), owner != index {
                out.append(Finding(invariant: .userIsolation, detail: "\(e.template) shows session \(sid) of user \(owner)",
                                   seqs: [seen.seq]))
            }
        }
        switch e.route {
        case .createSession:
            if e.succeeded { log.sessionSeen(e.body, at: e.received); e.body?["id"]?.string.map { fleet.own($0, by: index) } }
        case .postOnboarding:
            if e.succeeded, let d = e.body?["diagnostic_session"] {
                log.sessionSeen(d, at: e.received); d["id"]?.string.map { fleet.own($0, by: index) }
            }
        case .getSession, .readingComplete, .abandonSession:
            if e.succeeded, let id {
                log.sessionSeen(e.body, at: e.received)
                log.sessionStage(id, e.body?["stage"]?.string, seen: seen)
            }
        case .createAttempt:
            log.attemptCreated(e, session: id)
            if e.succeeded, let a = e.body?["attempt_id"]?.string { fleet.own(a, by: index, attempt: true) }
        case .submitAttempt, .getAttempt, .retryAttempt:
            if let id { out += log.attemptAnswered(attempt: id, e, seen: seen, isSubmit: e.route == .submitAttempt) }
        case .completeSession:
            if let id {
                out += log.settlementAnswered(session: id, e, seen: seen, day: fleet.localDays(log.timezone, sent: e.sent, received: e.received))
                // Anything but a 4xx may have settled (an answer lost after its effect committed counts too).
                if !(400..<500).contains(e.status ?? 0) { log.settledAfterDeletion(session: id, e) }
            }
        case .postTransaction:
            if let tx = UserLog.transactionID(ofRequest: e.requestBody) {
                let other = log.otherPurchaseOverlaps(tx, sent: e.sent, received: e.received)
                out += log.purchaseAnswered(transaction: tx, e, seen: seen, otherOverlapped: other)
            }
        case .getMe:
            out += log.meAnswered(e, seen: seen)
            out += log.meEntitlement(e, seen: seen)
        case .getHome:
            out += log.resumeShown(e, seen: seen)
        case .deleteTrainingData:
            log.deletionAnswered(e, seen: seen)
        case .deleteMe:
            if e.succeeded { log.forgetAccount() }
        default: break
        }
        return out
    }

    // MARK: For the audit and the report

    var hasViolated: Bool { state.withLock { $0.violated } }
    var traceEntries: [TraceEntry] { state.withLock { $0.ring.entries } }
    /// Trace entries the user's ring has room for (for the tests).
    var traceReserved: Int { state.withLock { $0.ring.reserved } }
    var pendingAttempts: [String] { state.withLock { $0.log.attemptsAwaitingTerminal } }
    var completesInDoubt: [String] { state.withLock { $0.log.sessions.filter { $0.value.completeInDoubt }.map(\.key).sorted() } }
    func attemptStatus(_ id: String) -> String? { state.withLock { $0.log.attempts[id]?.lastStatus } }
    func submittedSeq(_ id: String) -> Int? { state.withLock { $0.log.attempts[id]?.submitted?.seq } }
    func forgetAttempt(_ id: String) { state.withLock { _ = $0.log.attempts.removeValue(forKey: id) } }

    /// Ids this user has seen, for the amplifiers (late duplicates, reads after a deletion).
    public var settledSessions: [String] {
        state.withLock { $0.log.sessions.filter { $0.value.settlement != nil }.map(\.key).sorted() }
    }
    public func othersIDs(count: Int) -> [OwnedID] { fleet.othersIDs(excluding: index, count: count) }
    public var knownSessions: [String] { state.withLock { $0.log.sessions.keys.sorted() } }
    public var knownAttempts: [String] { state.withLock { $0.log.attempts.keys.sorted() } }

    /// A user that walked to its end with nothing to audit and no violation drops its ring.
    public func walkEnded() {
        state.withLock { s in
            if !s.violated && s.log.attemptsAwaitingTerminal.isEmpty { s.ring.release() }
        }
    }

    /// A user about to be idle for long (`VirtualUser.restMs` or more) gives back its trace's
    /// slack: 200,000 thinking users held 3 KiB each in their rings (bench/scale-memory.sh).
    public func willRest() { state.withLock { $0.ring.compact() } }

    /// Records a finding made outside an exchange (the audit).
    func reportAudit(_ f: Finding, at mono: UInt64) {
        let journey = state.withLock { s -> String in s.violated = true; return s.journey }
        fleet.report(Violation(invariant: f.invariant, user: index, scenario: scenario, journey: journey, seed: fleet.seed,
                               firstAtS: fleet.clock.secondsSinceStart(mono), detail: f.detail,
                               requests: f.seqs.map { "#\($0)" }))
    }
}
