import XCTest
import FleetCore
@testable import FleetStack

/// Injected latency and errors, rate limiting and size limits, over HTTP.
final class AppFaultTests: XCTestCase {
    func testErrorFractionAnswersWithARetryableEnvelopeOnThatRouteOnly() throws {
        let app = try AppStack { $0.faults = ["GET /home": RouteFault(errorFraction: 1, errorStatus: 503)] }
        let u = try app.signIn()
        let r = try app.call("GET", "/home", token: u.token)
        XCTAssertEqual(r.status, 503)
        XCTAssertEqual(r.errorCode, "unavailable")
        XCTAssertEqual(r.json["error"]?["retryable"]?.bool, true)
        XCTAssertEqual(r.header("Retry-After"), "1")
        XCTAssertEqual(try app.call("GET", "/me", token: u.token).status, 200)
    }

    func testAStoppingStackAnswersQueuedRequests503WithoutRunningThem() throws {
        let app = try AppStack()
        let u = try app.signIn()
        let before = try app.call("GET", "/me", token: u.token)
        XCTAssertEqual(before.status, 200)
        app.stack.app?.stopping.store(true, ordering: .relaxed)
        let r = try app.call("POST", "/sessions", json: ["kind": "daily"], token: u.token, key: UUID().uuidString)
        XCTAssertEqual(r.status, 503)
        XCTAssertEqual(r.errorCode, "unavailable")
        XCTAssertEqual(r.header("Retry-After"), "1")
        XCTAssertEqual(try app.call("GET", "/healthz").status, 200, "routes without the database still answer")
    }

    func testPartialErrorFractionIsRoughlyThatFraction() throws {
        let app = try AppStack { $0.faults = ["GET /me": RouteFault(errorFraction: 0.3, errorStatus: 500)] }
        let u = try app.signIn()
        var errors = 0
        for _ in 0..<100 where try app.call("GET", "/me", token: u.token).status == 500 { errors += 1 }
        XCTAssertTrue((15...45).contains(errors), "\(errors) of 100")
    }

    func testAddedLatency() throws {
        let app = try AppStack { $0.faults = ["GET /me": RouteFault(latencyMedianMs: 1_000)] }
        let u = try app.signIn()
        let start = Date()
        XCTAssertEqual(try app.call("GET", "/me", token: u.token).status, 200)
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(start), 0.99)
        let quick = Date()
        XCTAssertEqual(try app.call("GET", "/home", token: u.token).status, 200)
        XCTAssertLessThan(Date().timeIntervalSince(quick), 0.9, "other routes are not slowed")
    }

    func testRateLimitAnswers429WithRetryAfter() throws {
        let app = try AppStack { $0.rateLimitPerSecond = 0.1; $0.rateLimitBurst = 3 }
        let u = try app.signIn()
        let other = try app.signIn()
        for _ in 0..<3 { XCTAssertEqual(try app.call("GET", "/me", token: u.token).status, 200) }
        let limited = try app.call("GET", "/me", token: u.token)
        XCTAssertEqual(limited.status, 429)
        XCTAssertEqual(limited.errorCode, "rate_limited")
        XCTAssertEqual(limited.json["error"]?["retryable"]?.bool, true)
        XCTAssertGreaterThanOrEqual(Int(limited.header("Retry-After") ?? "") ?? 0, 1)
        XCTAssertEqual(try app.call("GET", "/me", token: other.token).status, 200, "buckets are per user")
        app.clock.advance(ms: 10_100)
        XCTAssertEqual(try app.call("GET", "/me", token: u.token).status, 200, "the bucket refills")
    }

    func testOversizedJSONBodyIs413() throws {
        let app = try AppStack()
        let big = Array(#"{"install_id":""#.utf8) + Array(repeating: UInt8(ascii: "a"), count: 70_000) + Array(#""}"#.utf8)
        let r = try app.call("POST", "/auth/anonymous", headers: [("Content-Type", "application/json")], body: big)
        XCTAssertEqual(r.status, 413)
    }

    func testConcurrentCreatesWithOneKeyMakeOneSession() throws {
        let app = try AppStack()
        let u = try app.signIn()
        let ids = AppStack.concurrently(20) { _ in
            try? app.call("POST", "/sessions", json: ["article_id": "en-daily-004", "kind": "daily"], token: u.token, key: "same")
                .json["id"]?.string
        }
        XCTAssertEqual(ids.count, 20)
        XCTAssertEqual(Set(ids).count, 1)
    }
}
