import FleetClient
import FleetCore
import FleetJourneys
import FleetMetrics
import FleetStack
import XCTest

/// Flow 2 with its feedback screen, against the embedded stack.
final class DailyQuestJourneyTests: XCTestCase {
    static let questTemplates = [
        "POST /auth/anonymous", "GET /config", "GET /home", "POST /sessions", "POST /sessions/{id}/reading-complete",
        "POST /sessions/{id}/attempts", "PUT upload", "POST /attempts/{id}/submit", "GET /attempts/{id}",
        "GET /attempts/{id}/exemplar", "GET /attempts/{id}/audio", "POST /assessments/{id}/feedback",
        "POST /sessions/{id}/attempts", "PUT upload", "POST /attempts/{id}/submit", "GET /attempts/{id}",
        "POST /sessions/{id}/complete", "GET /home",
    ]

    /// The flow table's sequence, evidence expired (`410`) shown and passed over, feedback posted, one settlement.
    func testQuestWithFeedbackFollowsTheFlowTableAndSettlesOnce() async throws {
        let h = try JourneyHarness { $0.audioRetentionS = 0; $0.exemplarDelayMs = 2_500 }
        defer { h.shutdown() }
        let world = h.world(probabilities: ["dailyQuest.fetch_evidence": 1, "dailyQuest.rate_feedback": 1])
        let user = h.user(1, world: world)
        let (outcome, trace) = await h.walk(DailyQuest(), user)
        XCTAssertEqual(outcome, .completed, trace.entries.map(\.description).joined(separator: "\n"))
        // The exemplar is pending for 2.5 s after the assessment: it is polled more than once.
        XCTAssertGreaterThan(trace.templates.filter { $0 == "GET /attempts/{id}/exemplar" }.count, 1)
        XCTAssertEqual(trace.collapsedTemplates, Self.questTemplates)
        XCTAssertEqual(trace.entries.first { $0.template == "GET /attempts/{id}/audio" }?.status, 410)
        XCTAssertEqual(trace.entries.first { $0.template == "POST /assessments/{id}/feedback" }?.status, 204)
        let me = try await h.get("GET /me", "/me", as: user)
        XCTAssertEqual(me["stats"]?["sessions_completed"]?.int, 1)
        let results = h.recorder.snapshot(RunMetadata.testing)
        XCTAssertEqual(results.metric("settlement")?.corrected.count, 1)
        XCTAssertNil(results.metric("settlement_replay"))
    }

    /// A `409 stage_precondition` refetches the session and routes by the server's stage: here the
    /// app believes round 1 while the server is still `reading`.
    func testStagePreconditionRefetchesAndRoutesByStage() async throws {
        let h = try JourneyHarness()
        defer { h.shutdown() }
        let user = h.user(2, world: h.world())
        let trace = RequestTrace()
        try await RequestScope.with({ $0.trace = trace }) {
            try await user.launch()
            let home = try await user.openHome()
            var session = try user.expect(await user.client.createSession(
                articleId: XCTUnwrap(home.questArticleId), kind: "daily", key: user.newKey(), user.credentials,
                intended: user.nextIntended, random: &user.random))
            XCTAssertEqual(session.stage, "reading")
            session.stage = "round1"
            let settlement = try await user.playSession(session)
            XCTAssertEqual(settlement?.replayed, false)
        }
        let t = trace.collapsedTemplates
        let conflict = try XCTUnwrap(trace.entries.firstIndex { $0.template == "POST /sessions/{id}/attempts" })
        XCTAssertEqual(trace.entries[conflict].status, 409)
        XCTAssertEqual(trace.entries[conflict + 1].template, "GET /sessions/{id}")
        XCTAssertEqual(trace.entries[conflict + 2].template, "POST /sessions/{id}/reading-complete")
        XCTAssertEqual(t.last, "POST /sessions/{id}/complete")
    }

    /// `POST /complete` answering 503 most of the time: the client and then the user retry with the
    /// same key (the session id) until it settles; one settlement, one `settlement` sample.
    func testSettlementRetriedOnServerErrorsWithTheSameKey() async throws {
        let h = try JourneyHarness { $0.faults = ["POST /sessions/{id}/complete": RouteFault(errorFraction: 0.5, errorStatus: 500)] }
        defer { h.shutdown() }
        let user = h.user(3, world: h.world(probabilities: ["dailyQuest.fetch_evidence": 0, "dailyQuest.rate_feedback": 0]))
        let (outcome, trace) = await h.walk(DailyQuest(), user)
        let completes = trace.entries.filter { $0.template == "POST /sessions/{id}/complete" }.map(\.status)
        XCTAssertEqual(outcome, .completed, "\(completes)")
        XCTAssertGreaterThan(completes.count, 1, "the fault must have hit at least once: \(completes)")
        XCTAssertEqual(completes.last, 200)
        XCTAssertTrue(completes.dropLast().allSatisfy { $0 == 500 }, "\(completes)")
        let me = try await h.get("GET /me", "/me", as: user)
        XCTAssertEqual(me["stats"]?["sessions_completed"]?.int, 1)
        let settlement = h.recorder.snapshot(.testing).metric("settlement")
        XCTAssertEqual(settlement?.corrected.count, 1)
        XCTAssertEqual(settlement?.errors, 0)
    }
}

extension RunMetadata {
    static var testing: RunMetadata {
        RunMetadata(runId: "journeyB-test", profile: "test", seed: 42, target: "embedded", startedAt: "2026-01-01T00:00:00.000Z")
    }
}
