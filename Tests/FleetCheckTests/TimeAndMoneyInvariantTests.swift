import FleetCheck
import FleetCore
import FleetMetrics
import XCTest

/// streak_once_per_local_day and transaction_extends_once on scripted answers.
final class TimeAndMoneyInvariantTests: XCTestCase {
    /// 2025-12-01 in UTC+05:45: local midnight is 18:15 UTC of the day before.
    let localMidnight: Int64 = 1_764_547_200_000 - (5 * 3600 + 45 * 60) * 1000

    func testSettlementJustAfterLocalMidnightMustGrowTheStreak() {
        let t = Script(wallAtZero: localMidnight - 3_600_000), u = t.user(1, timezone: "+05:45")
        t.createSession(u, "s1")
        t.at(wallMs: localMidnight - 20_000)
        t.complete(u, "s1", Script.settlement("s1", award: 20, total: 20, streak: 1, extended: true))
        t.createSession(u, "s2")
        t.at(wallMs: localMidnight + 10_000)
        t.complete(u, "s2", Script.settlement("s2", award: 20, total: 40, streak: 2, extended: true))
        XCTAssertEqual(t.fleet.violations, [], "a correct stack grows the streak on the first settlement of the new local day")

        // A stack counting UTC days sees the same day on both sides of the local midnight.
        let b = Script(wallAtZero: localMidnight - 3_600_000), w = b.user(2, timezone: "+05:45")
        b.createSession(w, "s1")
        b.at(wallMs: localMidnight - 20_000)
        b.complete(w, "s1", Script.settlement("s1", award: 20, total: 20, streak: 1, extended: true))
        b.createSession(w, "s2")
        b.at(wallMs: localMidnight + 10_000)
        b.complete(w, "s2", Script.settlement("s2", award: 20, total: 40, streak: 1, extended: false))
        let v = b.violations(.streakOncePerLocalDay)
        XCTAssertEqual(v.count, 1)
        XCTAssertTrue(v[0].detail.contains("expected streak 2 extended"), v[0].detail)
    }

    func testTwoExtensionsInOneLocalDayFire() {
        let t = Script(), u = t.user(1, timezone: "Asia/Kathmandu")
        t.createSession(u, "s1")
        t.complete(u, "s1", Script.settlement("s1", award: 20, total: 20, streak: 1, extended: true))
        t.createSession(u, "s2")
        t.complete(u, "s2", Script.settlement("s2", award: 20, total: 40, streak: 2, extended: true))
        XCTAssertEqual(t.violations(.streakOncePerLocalDay).count, 1)
    }

    func testSettlementTooCloseToMidnightForTheSkewIsNotJudged() {
        let t = Script(wallAtZero: localMidnight - 3_600_000, skewToleranceS: 2), u = t.user(1, timezone: "+05:45")
        t.createSession(u, "s1")
        t.at(wallMs: localMidnight - 20_000)
        t.complete(u, "s1", Script.settlement("s1", award: 20, total: 20))
        t.createSession(u, "s2")
        t.at(wallMs: localMidnight - 1_000)  // the stack's clock may already be past midnight
        t.complete(u, "s2", Script.settlement("s2", award: 20, total: 40, streak: 2, extended: true))
        XCTAssertEqual(t.fleet.violations, [])
    }

    func testDiagnosticSettlementDoesNotCountForTheStreak() {
        let t = Script(), u = t.user(1)
        t.send(u, "POST /onboarding", "/onboarding", body: ["diagnostic_session": Script.session("d1", kind: "diagnostic", stage: "round1")],
               status: 200)
        t.complete(u, "d1", Script.settlement("d1", award: 0, total: 0, streak: 0, extended: false))
        t.createSession(u, "s1")
        t.complete(u, "s1", Script.settlement("s1", award: 20, total: 20, streak: 1, extended: true))
        XCTAssertEqual(t.fleet.violations, [])
    }

    private func signed(_ tx: String) -> JSONValue {
        let payload = Base64URL.encode(Array(#"{"transaction_id":"\#(tx)"}"#.utf8))
        return ["signed_transaction": .string("eyJhbGciOiJIUzI1NiJ9.\(payload).c2ln")]
    }

    private func entitlement(_ expires: String) -> JSONValue { ["status": "active", "expires_at": .string(expires)] }

    func testOneTransactionSubmittedAgainMustNotExtend() {
        let t = Script(), u = t.user(1)
        let path = "/subscriptions/apple/transactions"
        t.send(u, "POST /subscriptions/apple/transactions", path, body: entitlement("2026-01-01T00:00:00.000Z"), request: signed("T1"), status: 200)
        t.send(u, "POST /subscriptions/apple/transactions", path, body: entitlement("2026-01-01T00:00:00.000Z"), request: signed("T1"), status: 200)
        t.send(u, "POST /subscriptions/apple/transactions", path, body: entitlement("2026-02-01T00:00:00.000Z"), request: signed("T2"), status: 200)
        t.send(u, "GET /me", "/me", body: ["entitlement": entitlement("2026-02-01T00:00:00.000Z")], status: 200)
        XCTAssertEqual(t.fleet.violations, [])

        t.send(u, "POST /subscriptions/apple/transactions", path, body: entitlement("2026-03-01T00:00:00.000Z"), request: signed("T2"), status: 200)
        XCTAssertEqual(t.violations(.transactionExtendsOnce).count, 1)
        t.send(u, "GET /me", "/me", body: ["entitlement": entitlement("2026-04-01T00:00:00.000Z")], status: 200)
        XCTAssertEqual(t.violations(.transactionExtendsOnce).count, 2)
    }
}
