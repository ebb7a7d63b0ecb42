import FleetClient
import FleetCore
import FleetMetrics

/// A breach found in one user's history: which invariant, what was expected and seen, and the
/// trace entries (`seq`) that show it.
public struct Finding: Sendable, Equatable {
    public var invariant: Invariant
    public var detail: String
    public var seqs: [Int]
}

/// An exchange as one user's history keeps it: its trace number and when it went out and ended.
struct Seen: Sendable {
    var seq: Int
    var sent: UInt64
    var received: UInt64
}

/// What one user has been told about one of its sessions.
struct SessionFacts: Sendable {
    var kind: String?
    /// When the answer that first showed the session to this user arrived.
    var createdAt: UInt64
    /// An answer showed it completed or abandoned (it can never be in progress again).
    var finished: Seen?
    /// The first settlement seen (canonical JSON without `replayed`), and the first answer that said `replayed: false`.
    /// The first settlement answer seen, as it came; its canonical form (`SettlementInfo.canonicalBytes`)
    /// is made only when another answer comes to compare with it (a replay), not on every first
    /// settlement (~27k instructions).
    var settlement: (body: JSONObject, seen: Seen)?
    var firstSettlement: Seen?
    var award: Int?
    /// A complete went out and no answer came (or a 5xx): it may have settled.
    var completeInDoubt = false
}

/// What one user has been told about one attempt.
struct AttemptFacts: Sendable {
    var session: String?
    var createdAt: UInt64
    var submitted: Seen?
    /// The terminal status seen, with the exchange that showed it; cleared by a retry.
    var terminal: (status: String, seen: Seen)?
    var lastStatus: String?
}

/// The streak as a chain of settlements in server order: where the last one fell and what it said.
enum StreakChain: Sendable {
    /// No settlement has happened for this user yet (a fresh install, or just after a deletion).
    case fresh
    case after(day: Int64, current: Int, seen: Seen)
    /// Something unknown may have happened (a settlement in doubt, overlapping completes).
    case unknown
}

/// The facts of one virtual user's history against which every new answer is judged.
///
/// Sound first: every rule fires only when what the user saw leaves no innocent explanation,
/// under retries, lost answers, kills, concurrency between its own devices, and clock skew.
struct UserLog: Sendable {
    let timezone: LocalTimeZone
    var sessions: [String: SessionFacts] = [:]
    var attempts: [String: AttemptFacts] = [:]
    /// XP before the first settlement this history covers; nil until known.
    var xpBaseline: Int? = 0
    /// Completes in flight by path, and the intervals of recent completes (for overlap).
    var completesInFlight: [String: Int] = [:]
    var recentCompletes: [(session: String, sent: UInt64, received: UInt64)] = []
    /// What a user that never settled, bought or deleted has none of, boxed (`Later`): 200,000
    /// thinking users held 160 bytes each of it inline in their checkers.
    private var later: Later?

    init(timezone: String) { self.timezone = LocalTimeZone(timezone) }

    var streak: StreakChain {
        get { later?.facts.streak ?? .fresh }
        set { laterFacts { $0.streak = newValue } }
    }
    var purchasesInFlight: [String: Int] {
        get { later?.facts.purchasesInFlight ?? [:] }
        set { laterFacts { $0.purchasesInFlight = newValue } }
    }
    var recentPurchases: [(tx: String, sent: UInt64, received: UInt64)] {
        get { later?.facts.recentPurchases ?? [] }
        set { laterFacts { $0.recentPurchases = newValue } }
    }
    var entitlement: EntitlementLog {
        get { later?.facts.entitlement ?? EntitlementLog() }
        set { laterFacts { $0.entitlement = newValue } }
    }
    var deletion: DeletionFacts? {
        get { later?.facts.deletion }
        set { laterFacts { $0.deletion = newValue } }
    }

    /// Whether the history has boxed facts, and the zone it shares (for the tests).
    var holdsLaterFacts: Bool { later != nil }
    var sharedZone: ObjectIdentifier { timezone.storageID }

    /// Changes the boxed facts, boxing them on first use and copying the box if another log
    /// shares it (a copied log stays a value).
    private mutating func laterFacts(_ change: (inout LaterFacts) -> Void) {
        if later == nil {
            later = Later(LaterFacts())
        } else if !isKnownUniquelyReferenced(&later!) {
            later = Later(later!.facts)
        }
        change(&later!.facts)
    }

    /// Sum of the known awards of this user's settled sessions.
    var awardSum: Int { sessions.values.reduce(0) { $0 + ($1.award ?? 0) } }
    var anyCompleteInDoubt: Bool { sessions.values.contains { $0.completeInDoubt } }

    /// Whether a complete of another session than `session` overlapped [sent, received].
    func otherCompleteOverlaps(_ session: String?, sent: UInt64, received: UInt64) -> Bool {
        if completesInFlight.contains(where: { $0.value > 0 && Self.session(ofPath: $0.key) != session }) { return true }
        return recentCompletes.contains { $0.session != session && $0.sent < received && $0.received > sent }
    }

    static func session(ofPath p: String) -> String {
        let parts = p.split(separator: "/")
        return parts.count >= 2 ? String(parts[1]) : p
    }

    mutating func noteComplete(session: String, sent: UInt64, received: UInt64) {
        recentCompletes.append((session, sent, received))
        if recentCompletes.count > 16 { recentCompletes.removeFirst(recentCompletes.count - 16) }
    }

    /// Everything this history knew of sessions, XP and streak is reset (account deleted: a new user).
    mutating func forgetAccount() {
        sessions = [:]; attempts = [:]; xpBaseline = 0; streak = .fresh; entitlement = EntitlementLog(); deletion = nil
    }
}

/// The facts of `UserLog` that only some users' histories come to hold.
struct LaterFacts: Sendable {
    var streak: StreakChain = .fresh
    var purchasesInFlight: [String: Int] = [:]
    var recentPurchases: [(tx: String, sent: UInt64, received: UInt64)] = []
    var entitlement = EntitlementLog()
    var deletion: DeletionFacts?
}

/// A box for `LaterFacts`, changed only through `UserLog.laterFacts` (copied when shared).
// @unchecked: its one `var` is changed only by the log holding the only reference (checked).
final class Later: @unchecked Sendable {
    var facts: LaterFacts
    init(_ facts: LaterFacts) { self.facts = facts }
}

extension UserLog {
    /// In-flight bookkeeping, before a request goes out.
    mutating func willSend(route: Route?, path: String, body: JSONValue?) {
        switch route {
        case .completeSession: completesInFlight[path, default: 0] += 1
        case .postTransaction:
            purchasesInFlight[Self.transactionID(ofRequest: body) ?? "?", default: 0] += 1
        case .retryAttempt:
            retrySent(attempt: Self.session(ofPath: path))
        default: break
        }
    }

    mutating func ended(route: Route?, path: String, body: JSONValue?) {
        switch route {
        case .completeSession: completesInFlight[path, default: 1] -= 1
        case .postTransaction: purchasesInFlight[Self.transactionID(ofRequest: body) ?? "?", default: 1] -= 1
        default: break
        }
    }

    /// Whether a purchase of another transaction than `tx` is in flight or overlapped [sent, received].
    mutating func otherPurchaseOverlaps(_ tx: String, sent: UInt64, received: UInt64) -> Bool {
        let inFlight = purchasesInFlight.contains { $0.key != tx && $0.value > 0 }
        let overlapped = recentPurchases.contains { $0.tx != tx && $0.sent < received && $0.received > sent }
        recentPurchases.append((tx, sent, received))
        if recentPurchases.count > 16 { recentPurchases.removeFirst(recentPurchases.count - 16) }
        return inFlight || overlapped
    }
}
