import FleetClient
import FleetCore
import FleetJourneys
import FleetMetrics
import XCTest

/// Flow 7: a bench-signed subscription lapses inside the run; `402` leads to the paywall.
final class ExpiryJourneyTests: XCTestCase {
    static let subscriptionLength = ["subscription_length": ThinkTime.constant(ms: 1_200)]

    /// The lapse is seen as `402` on a new session; the expired-return paywall follows; the user
    /// resubscribes and practises, and the entitlement is active again afterwards.
    func testLapseGives402ThenPaywallThenResubscribe() async throws {
        let h = try JourneyHarness { $0.newUserEntitlement = "none" }
        defer { h.shutdown() }
        let world = h.world(probabilities: ["expiry.subscribe": 1, "expiry.fetch_evidence": 0, "expiry.rate_feedback": 0],
                            thinkTimes: Self.subscriptionLength)
        let user = h.user(1, world: world)
        let (outcome, trace) = await h.walk(Expiry(), user)
        let log = trace.entries.map(\.description).joined(separator: "\n")
        XCTAssertEqual(outcome, .completed, log)
        let t = trace.collapsedTemplates
        XCTAssertEqual(Array(t.prefix(11)), [
            "POST /auth/anonymous", "GET /config", "GET /paywall", "POST /subscriptions/apple/transactions", "GET /home",
            "GET /me", "POST /sessions", "GET /paywall", "GET /me", "POST /subscriptions/apple/transactions", "POST /sessions",
        ], log)
        let creates = trace.entries.filter { $0.template == "POST /sessions" }.map(\.status)
        XCTAssertEqual(creates, [402, 201], log)
        XCTAssertEqual(t.last, "GET /home")
        XCTAssertTrue(t.contains("POST /sessions/{id}/complete"))
        let me = try await h.get("GET /me", "/me", as: user)
        XCTAssertEqual(me["entitlement"]?["status"]?.string, "active")
        XCTAssertEqual(me["stats"]?["sessions_completed"]?.int, 1)
        let funnel = h.recorder.snapshot(.testing).journeys.first { $0.journey == "expiry" }
        XCTAssertTrue(funnel?.steps.contains { $0.step == "paywall_expired_return" } ?? false)
    }

    /// Leaving the expired-return paywall ends the journey abandoned there, with no session made.
    func testLeavingThePaywallAbandons() async throws {
        let h = try JourneyHarness { $0.newUserEntitlement = "none" }
        defer { h.shutdown() }
        let world = h.world(probabilities: ["expiry.subscribe": 0], thinkTimes: Self.subscriptionLength)
        let user = h.user(2, world: world)
        let (outcome, trace) = await h.walk(Expiry(), user)
        XCTAssertEqual(outcome, .abandoned)
        XCTAssertEqual(trace.entries.filter { $0.template == "POST /sessions" }.map(\.status), [402])
        XCTAssertEqual(trace.templates.last, "GET /me")
        let exit = h.recorder.snapshot(.testing).journeys.first { $0.journey == "expiry" }?.exits.first
        XCTAssertEqual(exit?.step, "paywall_expired_return")
        let me = try await h.get("GET /me", "/me", as: user)
        XCTAssertEqual(me["entitlement"]?["status"]?.string, "expired")
    }

    /// With a grace period the user goes offline inside `grace_until` and makes no request while
    /// the cache serves; the `402` comes only once grace has ended.
    func testOfflineInsideGraceMakesNoRequests() async throws {
        let h = try JourneyHarness { $0.newUserEntitlement = "none"; $0.gracePeriodS = 2 }
        defer { h.shutdown() }
        let world = h.world(probabilities: ["expiry.subscribe": 0, "expiry.offline_in_grace": 1],
                            thinkTimes: Self.subscriptionLength) { $0.offlineDuration = .constant(ms: 800) }
        let user = h.user(3, world: world)
        let started = Date()
        let (outcome, trace) = await h.walk(Expiry(), user)
        XCTAssertEqual(outcome, .abandoned)
        // Subscription 1.2 s + grace 2 s must have passed before the 402.
        XCTAssertGreaterThan(Date().timeIntervalSince(started), 3.2)
        let t = trace.collapsedTemplates
        XCTAssertEqual(Array(t.prefix(9)), [
            "POST /auth/anonymous", "GET /config", "GET /paywall", "POST /subscriptions/apple/transactions", "GET /home",
            "GET /me", "POST /sessions", "GET /paywall", "GET /me",
        ], t.joined(separator: "\n"))
        XCTAssertEqual(trace.templates.filter { $0 == "GET /me" }.count, 3, "grace seen, then expired, then the paywall's")
        let steps = h.recorder.snapshot(.testing).journeys.first { $0.journey == "expiry" }?.steps.map(\.step) ?? []
        XCTAssertTrue(steps.contains("offline_grace") && steps.contains("grace_cache"), steps.joined(separator: ", "))
    }
}
