import XCTest
import FleetCore
@testable import FleetStack

/// Sandbox signed transactions and the entitlement life cycle, over HTTP.
final class AppSubscriptionTests: XCTestCase {
    private let day: Int64 = 86_400_000

    func testTrialPurchaseUnlocksSessionsUntilExpiry() throws {
        let app = try AppStack { $0.newUserEntitlement = "none" }
        let u = try app.signIn()
        let body: JSONValue = ["article_id": "en-daily-001", "kind": "daily"]
        XCTAssertEqual(try app.call("POST", "/sessions", json: body, token: u.token, key: "a").status, 402)
        let now = app.clock.nowMs()
        let r = try app.purchase(u, AppStack.signedTransaction(id: "t1", purchaseMs: now, durationMs: 7 * day))
        XCTAssertEqual(r.status, 200, r.text)
        XCTAssertEqual(r.json["status"]?.string, "trial")
        XCTAssertEqual(RFC3339.parseMillis(r.json["expires_at"]?.string ?? ""), now + 7 * day)
        XCTAssertEqual(r.json["grace_until"], .null)
        let s = try app.call("POST", "/sessions", json: body, token: u.token, key: "b")
        XCTAssertEqual(s.status, 201, s.text)
        app.clock.advance(ms: 7 * day + 1)
        XCTAssertEqual(try app.call("GET", "/me", token: u.token).status, 401, "the access token expired with the jump")
        let fresh = try app.call("POST", "/auth/refresh", json: ["refresh_token": .string(u.refresh)]).json["access_token"]?.string ?? ""
        XCTAssertEqual(try app.call("GET", "/me", token: fresh).json["entitlement"]?["status"]?.string, "expired")
        let blocked = try app.call("POST", "/sessions", json: ["article_id": "en-daily-002", "kind": "free"], token: fresh, key: "c")
        XCTAssertEqual(blocked.status, 402)
        XCTAssertEqual(blocked.errorCode, "entitlement_required")
        let sid = s.json["id"]?.string ?? ""
        XCTAssertEqual(try app.call("POST", "/sessions/\(sid)/reading-complete", token: fresh).status, 200,
                       "a session in progress can still be finished")
        let paid = try app.purchase(AppTestUser(id: u.id, token: fresh, refresh: u.refresh, installID: u.installID),
                                    AppStack.signedTransaction(id: "t2", purchaseMs: app.clock.nowMs(), durationMs: 30 * day, offer: "none"))
        XCTAssertEqual(paid.json["status"]?.string, "active")
    }

    func testGracePeriodAndSandboxAcceleration() throws {
        let app = try AppStack { $0.newUserEntitlement = "none"; $0.gracePeriodS = 60; $0.sandboxTimeScale = 8_640 }
        let u = try app.signIn()
        let now = app.clock.nowMs()
        let r = try app.purchase(u, AppStack.signedTransaction(id: "t1", purchaseMs: now, durationMs: day, offer: "none"))
        XCTAssertEqual(RFC3339.parseMillis(r.json["expires_at"]?.string ?? ""), now + 10_000, "one sandbox day lasts 10 s")
        XCTAssertEqual(RFC3339.parseMillis(r.json["grace_until"]?.string ?? ""), now + 70_000)
        app.clock.advance(ms: 20_000)
        XCTAssertEqual(try app.call("GET", "/me", token: u.token).json["entitlement"]?["status"]?.string, "grace")
        app.clock.advance(ms: 60_000)
        XCTAssertEqual(try app.call("GET", "/me", token: u.token).json["entitlement"]?["status"]?.string, "expired")
    }

    func testBadSignatureAndUnknownProductAreInvalid() throws {
        let app = try AppStack()
        let u = try app.signIn()
        let now = app.clock.nowMs()
        let forged = AppStack.signedTransaction(id: "t", purchaseMs: now, durationMs: day, key: "wrong-key")
        XCTAssertEqual(try app.purchase(u, forged).errorCode, "invalid_request")
        let unknown = AppStack.signedTransaction(id: "t", product: "free.money", purchaseMs: now, durationMs: day)
        XCTAssertEqual(try app.purchase(u, unknown).errorCode, "invalid_request")
        XCTAssertEqual(try app.purchase(u, "not-a-jws").errorCode, "invalid_request")
        let noKey = try app.call("POST", "/subscriptions/apple/transactions",
                                 json: ["signed_transaction": .string(AppStack.signedTransaction(id: "t", purchaseMs: now, durationMs: day))],
                                 token: u.token)
        XCTAssertEqual(noKey.errorCode, "invalid_request", "Idempotency-Key is required")
    }

    /// Twenty concurrent submissions of one transaction (each with its own key, as double taps
    /// would be) extend once; with `dup-transaction` on, each one extends.
    func testConcurrentDuplicatePurchasesExtendOnceUnlessTheBugIsOn() throws {
        for bug in [false, true] {
            let app = try AppStack { $0.newUserEntitlement = "none"; if bug { $0.bugs = [.dupTransaction] } }
            let u = try app.signIn()
            let now = app.clock.nowMs()
            let jws = AppStack.signedTransaction(id: "dup-1", purchaseMs: now, durationMs: 30 * day, offer: "none")
            let statuses = AppStack.concurrently(20) { _ in try? app.purchase(u, jws).status }
            XCTAssertEqual(statuses, Array(repeating: 200, count: 20))
            let expires = RFC3339.parseMillis(try app.call("GET", "/me", token: u.token).json["entitlement"]?["expires_at"]?.string ?? "") ?? 0
            if bug {
                XCTAssertGreaterThan(expires, now + 30 * day * 2, "dup-transaction extends once per submission")
            } else {
                XCTAssertEqual(expires, now + 30 * day, "one transaction id extends once")
            }
        }
    }

    func testSameKeyReplaysAndOtherBodyConflicts() throws {
        let app = try AppStack { $0.newUserEntitlement = "none" }
        let u = try app.signIn()
        let now = app.clock.nowMs()
        let a = try app.purchase(u, AppStack.signedTransaction(id: "t1", purchaseMs: now, durationMs: day), key: "k")
        let b = try app.purchase(u, AppStack.signedTransaction(id: "t1", purchaseMs: now, durationMs: day), key: "k")
        XCTAssertEqual(a.body, b.body)
        let c = try app.purchase(u, AppStack.signedTransaction(id: "t2", purchaseMs: now, durationMs: day), key: "k")
        XCTAssertEqual(c.errorCode, "idempotency_conflict")
    }
}
