import FleetClient
import FleetCore
import FleetMetrics
import Foundation
import Synchronization

/// The fleet's invariant checker: one `UserChecker` per virtual user, the registry of which user
/// owns which session and attempt (for isolation checks and cross-user probes), the violations
/// found, and the end-of-run audit.
public final class FleetChecker: Sendable {
    public let settings: CheckSettings
    public let seed: UInt64
    public let clock: RunClock
    public let skew: ClockSkew
    private let owners = Mutex<[String: Int]>([:])
    private let ownedByUser = Mutex<[Int: [OwnedID]]>([:])
    private let users = Mutex<[Int: UserChecker]>([:])
    private let found = Mutex<(rows: [Violation], dropped: Int)>(([], 0))

    public init(settings: CheckSettings, seed: UInt64, clock: RunClock) {
        self.settings = settings
        self.seed = seed
        self.clock = clock
        skew = ClockSkew(toleranceS: settings.clockSkewToleranceS)
    }

    /// The checker of user `index` (created on first use; a second device of the same install shares it).
    public func user(_ index: Int, scenario: String, journey: String, credentials: Credentials) -> UserChecker {
        users.withLock { u in
            if let c = u[index] { return c }
            let c = UserChecker(index: index, scenario: scenario, journey: journey, credentials: credentials, fleet: self)
            u[index] = c
            return c
        }
    }

    // MARK: Registry

    func own(_ id: String, by user: Int, attempt: Bool = false) {
        // The id's entry read and, when absent, filled in place: one hash of the id, not two.
        let fresh = owners.withLock { o in Self.claim(&o[id], by: user) }
        if fresh { ownedByUser.withLock { $0[user, default: []].append(OwnedID(id: id, isAttempt: attempt)) } }
    }

    private static func claim(_ owner: inout Int?, by user: Int) -> Bool {
        guard owner == nil else { return false }
        owner = user
        return true
    }

    func owner(of id: String) -> Int? { owners.withLock { $0[id] } }

    /// Ids of sessions and attempts of users other than `user`, for a cross-user probe: the
    /// `count` nearest below `user` in index order (deterministic for a given run): the last ids
    /// of the two users nearest in index (the lower first on a tie), found in one pass rather
    /// than by sorting every user on every probe.
    public func othersIDs(excluding user: Int, count: Int) -> [OwnedID] {
        ownedByUser.withLock { m in
            var nearest: [Int] = []
            func before(_ a: Int, _ b: Int) -> Bool { (abs(a - user), a) < (abs(b - user), b) }
            for k in m.keys where k != user {
                if nearest.count < 2 { nearest.append(k); nearest.sort(by: before); continue }
                if before(k, nearest[1]) { nearest[1] = k; if before(k, nearest[0]) { nearest.swapAt(0, 1) } }
            }
            return Array(nearest.flatMap { m[$0]!.suffix(count) }.prefix(count))
        }
    }

    // MARK: Findings

    func report(_ v: Violation) {
        found.withLock { f in
            if f.rows.count < settings.maxViolations { f.rows.append(v) } else { f.dropped += 1 }
        }
    }

    public var violations: [Violation] { found.withLock { $0.rows.sorted() } }
    public var droppedViolations: Int { found.withLock { $0.dropped } }

    /// The local days that the stack's clock may have been on between `sent` and `received`.
    func localDays(_ tz: LocalTimeZone, sent: UInt64, received: UInt64) -> ClosedRange<Int64> {
        let r = skew.rangeMs
        let a = tz.localDay(atMs: clock.wallMs(sent) + r.lowerBound), b = tz.localDay(atMs: clock.wallMs(received) + r.upperBound)
        return min(a, b)...max(a, b)
    }

    /// Users the run checked.
    public var userCount: Int { users.withLock { $0.count } }

    var allUsers: [UserChecker] { users.withLock { $0.values.sorted { $0.index < $1.index } } }

    // MARK: Traces

    /// Writes `traces/user-<K>.jsonl` for every user with a violation; returns how many.
    @discardableResult
    public func writeTraces(to dir: String, only: Set<Int>? = nil, name: (Int) -> String = { "user-\($0).jsonl" }) throws -> Int {
        let violators = Set(violations.map(\.user))
        let chosen = allUsers.filter { violators.contains($0.index) && (only?.contains($0.index) ?? true) }
        guard !chosen.isEmpty else { return 0 }
        let traces = dir + "/traces"
        try FileManager.default.createDirectory(atPath: traces, withIntermediateDirectories: true)
        for u in chosen {
            let text = u.traceEntries.map { $0.json() }.joined(separator: "\n") + "\n"
            try Data(text.utf8).write(to: URL(fileURLWithPath: traces + "/" + name(u.index)), options: .atomic)
        }
        return chosen.count
    }
}

/// A session or attempt id and whose it is (kept by the registry).
public struct OwnedID: Sendable, Equatable {
    public var id: String
    public var isAttempt: Bool
}
