import FleetClient
import FleetCore
import FleetJourneys
import FleetMetrics
import XCTest

/// Flows 3 (free practice) and 5 (microphone denied) against the embedded stack.
final class FreePracticeJourneyTests: XCTestCase {
    /// A session's requests with flow 2's feedback screen after round 1 (the exemplar; evidence
    /// audio and rating are left to the tests that pin them).
    static let session = [
        "POST /sessions", "POST /sessions/{id}/reading-complete",
        "POST /sessions/{id}/attempts", "PUT upload", "POST /attempts/{id}/submit", "GET /attempts/{id}",
        "GET /attempts/{id}/exemplar",
        "POST /sessions/{id}/attempts", "PUT upload", "POST /attempts/{id}/submit", "GET /attempts/{id}",
        "POST /sessions/{id}/complete",
    ]

    /// Library, a language filter, a locked row tapped (toast, no session), a free session, and the
    /// same article again: the repeat earns discounted XP (the journey checks it and completes).
    func testFreePracticeFiltersSkipsLockedRowsAndTheRepeatIsDiscounted() async throws {
        let h = try JourneyHarness()
        defer { h.shutdown() }
        let p = ["freePractice.filter_language": 1.0, "freePractice.filter_topic": 0, "freePractice.tap_locked": 1,
                 "freePractice.repeat": 1, "freePractice.fetch_evidence": 0, "freePractice.rate_feedback": 0]
        let user = h.user(1, world: h.world(probabilities: p), cohort: "subscriber")
        let (outcome, trace) = await h.walk(FreePractice(), user)
        XCTAssertEqual(outcome, .completed, "\(String(describing: h.exit(of: "freePractice")))\n\(trace.dump)")
        XCTAssertEqual(trace.collapsedTemplates,
                       ["POST /auth/anonymous", "GET /config", "GET /topics", "GET /articles"] + Self.session + Self.session,
                       trace.dump)
        // A locked row never became a session request (403 with unlock_hint).
        XCTAssertFalse(trace.entries.contains { $0.template == "POST /sessions" && $0.status == 403 })
        let me = try await h.me(user)
        XCTAssertEqual(me.sessionsCompleted, 2)
        // Two settlements of a free session: the first full, the repeat halved (reference rules: 30 or 40, then 15 or 20).
        XCTAssertLessThanOrEqual(me.xp, 40 + 20)
        XCTAssertGreaterThanOrEqual(me.xp, 30 + 15)
    }

    /// Without an entitlement `POST /sessions` is `402`: the expired-return paywall; a user who
    /// subscribes there gets its session on the second try.
    func testEntitlementRequiredRoutesToThePaywallAndSubscribing() async throws {
        let h = try JourneyHarness { $0.newUserEntitlement = "none" }
        defer { h.shutdown() }
        let p = ["freePractice.filter_language": 0.0, "freePractice.tap_locked": 0, "freePractice.repeat": 0,
                 "freePractice.subscribe": 1]
        let user = h.user(2, world: h.world(probabilities: p), cohort: "new")
        let (outcome, trace) = await h.walk(FreePractice(), user)
        XCTAssertEqual(outcome, .completed, trace.dump)
        let t = trace.collapsedTemplates
        let i = try XCTUnwrap(t.firstIndex(of: "POST /sessions"))
        XCTAssertEqual(Array(t[i...].prefix(6)), ["POST /sessions", "GET /paywall", "GET /me", "POST /subscriptions/apple/transactions",
                                                   "POST /sessions", "POST /sessions/{id}/reading-complete"], trace.dump)
        XCTAssertEqual(trace.entries.first { $0.template == "POST /sessions" }?.status, 402)
        let me = try await h.me(user)
        XCTAssertEqual(me.entitlement.status, "active")
    }

    /// Flow 5, recovered, for an onboarded subscriber: today's session, denied, Settings round
    /// trip, granted → records normally and settles.
    func testPermissionDeniedThenGrantedInSettingsRecordsNormally() async throws {
        let h = try JourneyHarness()
        defer { h.shutdown() }
        let p = ["permissionDenied.open_settings": 1.0, "permissionDenied.grant_in_settings": 1,
                 "permissionDenied.fetch_evidence": 0, "permissionDenied.rate_feedback": 1]
        let user = h.user(3, world: h.world(probabilities: p), cohort: "subscriber")
        let (outcome, trace) = await h.prepareAndWalk(PermissionDenied(), user)
        XCTAssertEqual(outcome, .completed, trace.dump)
        // The session runs as flow 2's (feedback rated after round 1), as every journey's does.
        var session = Self.session
        session.insert("POST /assessments/{id}/feedback", at: session.firstIndex(of: "GET /attempts/{id}/exemplar")! + 1)
        XCTAssertEqual(trace.collapsedTemplates, ["GET /config", "GET /me", "GET /home"] + session + ["GET /home"],
                       trace.dump)
        let steps = h.recorder.snapshot(RunMetadata.testing).journeys.first { $0.journey == "permissionDenied" }?.steps.map(\.step) ?? []
        let denied = try XCTUnwrap(steps.firstIndex(of: "permission_denied"))
        let granted = try XCTUnwrap(steps.firstIndex(of: "permission_granted"))
        let recorded = try XCTUnwrap(steps.firstIndex(of: "round1_upload"))
        XCTAssertLessThan(denied, granted)
        XCTAssertLessThan(granted, recorded)
        XCTAssertEqual(user.device.micPermission, .granted)
    }

    /// Flow 5, not recovered: still denied after Settings, the user goes back to the article —
    /// the session has no attempt at all.
    func testPermissionStillDeniedCreatesNoAttempt() async throws {
        let h = try JourneyHarness()
        defer { h.shutdown() }
        let p = ["permissionDenied.open_settings": 1.0, "permissionDenied.grant_in_settings": 0]
        let user = h.user(4, world: h.world(probabilities: p), cohort: "subscriber")
        let (outcome, trace) = await h.prepareAndWalk(PermissionDenied(), user)
        XCTAssertEqual(outcome, .abandoned, trace.dump)
        XCTAssertEqual(h.exit(of: "permissionDenied")?.code, "mic_denied")
        XCTAssertFalse(trace.templates.contains("POST /sessions/{id}/attempts"), trace.dump)
        let sessionId = try await h.questSession(of: user)
        let body = try await h.get("GET /sessions/{id}", "/sessions/\(sessionId)", as: user)
        let session = try XCTUnwrap(SessionInfo(body))
        XCTAssertEqual(session.stage, "round1")
        XCTAssertTrue(session.roundAttempts.isEmpty)
        XCTAssertEqual(user.device.micPermission, .denied)
    }

    /// Flow 5 for a new user, who has no entitlement and never sees a paywall here: onboarded
    /// first, the microphone is met at the diagnostic's record step; granted in Settings, the
    /// diagnostic is recorded and assessed. Still denied, the diagnostic keeps no attempt.
    func testNewUserMeetsTheMicrophoneAtTheDiagnostic() async throws {
        let h = try JourneyHarness { $0.newUserEntitlement = "none" }
        defer { h.shutdown() }
        let granted = h.user(5, world: h.world(probabilities: ["permissionDenied.open_settings": 1.0,
                                                                "permissionDenied.grant_in_settings": 1]), cohort: "new")
        let (outcome, trace) = await h.walk(PermissionDenied(), granted)
        XCTAssertEqual(outcome, .completed, "\(String(describing: h.exit(of: "permissionDenied")))\n\(trace.dump)")
        XCTAssertFalse(trace.templates.contains("POST /sessions"), "no daily session, so no 402: \(trace.dump)")
        XCTAssertEqual(Array(trace.collapsedTemplates.prefix(3)), ["POST /auth/anonymous", "GET /config", "GET /me"], trace.dump)
        let t = trace.collapsedTemplates
        let onboarding = try XCTUnwrap(t.firstIndex(of: "POST /onboarding"), trace.dump)
        XCTAssertEqual(Array(t[(onboarding + 1)...].filter { $0 != "PUT /me/push-token" && $0 != "GET /attempts/{id}" }),
                       ["POST /sessions/{id}/reading-complete", "POST /sessions/{id}/attempts", "PUT upload",
                        "POST /attempts/{id}/submit"], trace.dump)
        let steps = h.recorder.snapshot(RunMetadata.testing).journeys.first { $0.journey == "permissionDenied" }?.steps.map(\.step) ?? []
        for (earlier, later) in [("onboarding_submit", "diag_read"), ("diag_read", "permission_denied"),
                                 ("permission_denied", "permission_granted"), ("permission_granted", "round1_upload"),
                                 ("round1_upload", "diag_result")] {
            let a = try XCTUnwrap(steps.firstIndex(of: earlier), "\(earlier) in \(steps)")
            let b = try XCTUnwrap(steps.firstIndex(of: later), "\(later) in \(steps)")
            XCTAssertLessThan(a, b, "\(earlier) before \(later)")
        }
        let me = try await h.me(granted)
        XCTAssertTrue(me.isOnboarded)
        XCTAssertEqual(me.entitlement.status, "none")

        let denied = h.user(6, world: h.world(probabilities: ["permissionDenied.open_settings": 1.0,
                                                               "permissionDenied.grant_in_settings": 0]), cohort: "new")
        let (still, deniedTrace) = await h.walk(PermissionDenied(), denied)
        XCTAssertEqual(still, .abandoned, deniedTrace.dump)
        XCTAssertFalse(deniedTrace.templates.contains("POST /sessions/{id}/attempts"), deniedTrace.dump)
        XCTAssertTrue(deniedTrace.templates.contains("POST /onboarding"), deniedTrace.dump)
    }
}
