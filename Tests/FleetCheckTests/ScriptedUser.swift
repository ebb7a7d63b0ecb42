import FleetCheck
import FleetClient
import FleetCore
import FleetMetrics

/// Drives one or more users' checkers with scripted answers, on a scripted clock: each exchange
/// goes out 10 ms after the previous one ended and takes 5 ms, unless told otherwise.
final class Script {
    let fleet: FleetChecker
    /// The wall-clock instant (Unix ms) of monotonic 0.
    let wallAtZero: Int64
    private(set) var now: UInt64 = 1_000_000_000

    init(wallAtZero: Int64 = 1_764_547_200_000, skewToleranceS: Double = 2) {  // 2025-12-01T00:00:00Z
        var s = CheckSettings()
        s.clockSkewToleranceS = skewToleranceS
        self.wallAtZero = wallAtZero
        fleet = FleetChecker(settings: s, seed: 7, clock: RunClock(startMono: 0, startWallMs: wallAtZero))
    }

    func user(_ index: Int, timezone: String = "UTC") -> UserChecker {
        fleet.user(index, scenario: "s", journey: "j", credentials: Credentials(installId: "i\(index)", locale: "en-US", timezone: timezone))
    }

    /// Moves the clock so that the next exchange goes out at wall instant `ms`.
    func at(wallMs ms: Int64) { now = UInt64(ms - wallAtZero) * 1_000_000 }

    @discardableResult
    func send(_ u: UserChecker, _ template: String, _ path: String, body: JSONValue? = nil, request: JSONValue? = nil,
              status: Int?, key: String? = nil, tookMs: UInt64 = 5) -> Exchange {
        let sent = now &+ 10_000_000
        // A template the client does not call has nothing in flight to note (the checker ignores it).
        if let route = Route(rawValue: template) { u.willSend(route: route, path: path, body: request, at: sent) }
        let e = Exchange(template: template, path: path, requestBody: request, idempotencyKey: key, status: status, body: body,
                         rawBody: body?.serializedBytes() ?? [], intended: sent, sent: sent, received: sent &+ tookMs * 1_000_000)
        u.exchanged(e)
        now = e.received
        return e
    }

    func violations(_ inv: Invariant) -> [Violation] { fleet.violations.filter { $0.invariant == inv } }

    // MARK: Shapes

    static func settlement(_ session: String, award: Int, total: Int, streak: Int = 1, extended: Bool = true,
                           replayed: Bool = false) -> JSONValue {
        ["session_id": .string(session), "xp_awarded": .number(Double(award)), "xp_total": .number(Double(total)),
         "streak": ["current": .number(Double(streak)), "extended": .bool(extended)],
         "level": ["current": 1, "leveled_up": false], "achievements": .array([]), "outcome": "same", "replayed": .bool(replayed)]
    }

    static func session(_ id: String, kind: String = "daily", stage: String = "reading") -> JSONValue {
        ["id": .string(id), "kind": .string(kind), "article_id": "a1", "language": "en", "stage": .string(stage), "rounds": .array([])]
    }

    func createSession(_ u: UserChecker, _ id: String) {
        send(u, "POST /sessions", "/sessions", body: Script.session(id), status: 201, key: "k-\(id)")
    }

    func complete(_ u: UserChecker, _ id: String, _ body: JSONValue?, status: Int? = 200, tookMs: UInt64 = 5) {
        send(u, "POST /sessions/{id}/complete", "/sessions/\(id)/complete", body: body, status: status, key: id, tookMs: tookMs)
    }
}
