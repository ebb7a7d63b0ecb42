import FleetClient
import FleetCore
import FleetJourneys
import FleetMetrics
import FleetSQLite
import FleetTestSupport
import XCTest

/// Cohorts: each starting state is reached through the API, recorded apart (`warmup:` endpoints,
/// a `warmup` journey), and read back right.
final class CohortWarmupTests: XCTestCase {
    func testEveryCohortStartsFromItsStateReachedThroughTheAPI() async throws {
        let h = try JourneyHarness { $0.newUserEntitlement = "none"; $0.planDelayMs = 0 }
        defer { h.shutdown() }
        let world = h.world()
        // cohort → (entitlement, sessions completed, onboarded)
        let expected: [(String, String, Int, Bool)] = [
            ("new", "", 0, false), ("returning", "trial", 1, true), ("trial", "trial", 0, true),
            ("subscriber", "active", 0, true), ("at_risk", "trial", 0, true), ("expired", "expired", 0, true),
            ("reactivated", "active", 0, true),
        ]
        XCTAssertEqual(Set(expected.map(\.0)), JourneyCatalog.cohorts)
        var users: [VirtualUser] = []
        for (i, (cohort, _, _, _)) in expected.enumerated() {
            let user = h.user(10 + i, world: world, cohort: cohort)
            let trace = RequestTrace()
            let ready = await RequestScope.with({ $0.trace = trace }) { await Population.prepare(user) }
            XCTAssertTrue(ready, cohort)
            XCTAssertEqual(trace.entries.isEmpty, cohort == "new", "only a new user has no warm-up")
            XCTAssertFalse(trace.templates.contains { $0.hasPrefix("DELETE") || $0 == "PATCH /me" }, trace.dump)
            users.append(user)
        }
        // Taken before the read-backs below, which are the test's requests.
        let results = h.recorder.snapshot(RunMetadata.testing)
        for (user, (cohort, entitlement, sessions, onboarded)) in zip(users, expected) {
            guard cohort != "new" else {
                XCTAssertNil(user.credentials.accessToken, "a new install has not signed in yet")
                continue
            }
            let me = try await h.me(user)
            XCTAssertEqual(me.entitlement.status, entitlement, cohort)
            XCTAssertEqual(me.sessionsCompleted, sessions, cohort)
            XCTAssertEqual(me.streak, sessions > 0 ? 1 : 0, cohort)
            XCTAssertEqual(me.isOnboarded, onboarded, cohort)
            // Only returning users recorded the diagnostic (so have a plan); the others abandoned it.
            var random = SeededRandom(seed: 5, stream: 5)
            let plan = await h.client.plan(user.credentials, intended: MonotonicClock.now(), random: &random)
            if cohort == "returning" {
                XCTAssertEqual(try plan.get().articleIds.count, 14, "\(cohort): the plan job ran after the diagnostic")
            } else {
                guard case let .failure(e) = plan else { XCTFail("\(cohort) has a plan without a diagnostic"); continue }
                XCTAssertEqual(e.status, 404, cohort)
                let home = try await h.get("GET /home", "/home", as: user)
                XCTAssertTrue(home["resume_session"]?.isNull ?? false, "\(cohort): the skipped diagnostic is not offered for resuming")
            }
            XCTAssertNotNil(user.device.storeReceipt, cohort)
            if cohort == "at_risk" {
                let left = try XCTUnwrap(me.entitlement.expiresAtMillis) - WallClock.nowMillis()
                XCTAssertLessThanOrEqual(left, 300_000, "an at-risk trial ends within five minutes")
                XCTAssertGreaterThan(left, 60_000)
            }
        }
        // Warm-up requests are recorded apart; nothing else was requested through the recorder.
        XCTAssertFalse(results.endpoints.isEmpty)
        XCTAssertTrue(results.endpoints.allSatisfy { $0.name.hasPrefix("warmup:") }, results.endpoints.map(\.name).description)
        XCTAssertNotNil(results.endpoint("warmup:POST /subscriptions/apple/transactions"))
        XCTAssertEqual(results.requestTotals.errors, 0, "a warm-up puts no errors into the run's totals")
        let warmups = results.journeys.filter { $0.journey == "warmup" }
        XCTAssertEqual(Set(warmups.map(\.cohort)), JourneyCatalog.cohorts.subtracting(["new"]))
        XCTAssertTrue(warmups.allSatisfy { $0.completed == 1 && $0.failed == 0 })
        // No journey metrics from the warm-up (its assessments and settlements are not measured).
        XCTAssertNil(results.metric("assessment_turnaround"))
        XCTAssertNil(results.metric("settlement"))
    }

    /// A warm-up that cannot reach its state (here: sign-in refused for an old app) says so and
    /// keeps the user from walking its journey from a wrong state.
    func testFailedWarmupIsRecordedAndRefusesTheJourney() async throws {
        let h = try JourneyHarness { $0.minAppVersion = "9.0.0" }
        defer { h.shutdown() }
        let user = h.user(1, world: h.world(), cohort: "subscriber")
        let ready = await Population.prepare(user)
        XCTAssertFalse(ready)
        let warmup = try XCTUnwrap(h.recorder.snapshot(RunMetadata.testing).journeys.first { $0.journey == "warmup" })
        XCTAssertEqual(warmup.failed, 1)
        XCTAssertEqual(warmup.exits.first?.code, "upgrade_required")
    }

    /// A warm-up stopped by the end of the run (task cancelled) is recorded as interrupted, not failed.
    func testWarmupCutShortIsInterruptedNotFailed() async throws {
        let h = try JourneyHarness { $0.assessmentMedianMs = 2_000 }
        defer { h.shutdown() }
        let user = h.user(2, world: h.world(), cohort: "returning")
        let task = Task { await Population.prepare(user) }
        // Cut it short while it waits for the stack's (2 s) assessment of its first clip.
        let db = try SQLiteDatabase(path: h.dbPath)
        let assessing = await eventuallyAsync(within: 20) {
            ((try? db.queryOne("SELECT count(*) FROM attempts WHERE status IN ('queued', 'transcribing', 'assessing')"))?.int(0) ?? 0) > 0
        }
        XCTAssertTrue(assessing, "the warm-up submitted a clip")
        task.cancel()
        let ready = await task.value
        XCTAssertFalse(ready)
        let warmup = try XCTUnwrap(h.recorder.snapshot(RunMetadata.testing).journeys.first { $0.journey == "warmup" })
        XCTAssertEqual([warmup.failed, warmup.abandoned], [0, 1])
        XCTAssertEqual(warmup.exits.first?.code, "interrupted")
    }

    /// Default journey mixes name only known journeys and known cohorts.
    func testDefaultJourneyWeightsNameKnownJourneysAndEveryCohort() {
        XCTAssertEqual(Set(Population.defaultJourneyWeights.keys), JourneyCatalog.cohorts)
        for (cohort, weights) in Population.defaultJourneyWeights {
            for name in weights.keys { XCTAssertNotNil(JourneyCatalog.all[name.rawValue], "\(cohort): \(name)") }
            XCTAssertEqual(weights.values.reduce(0, +), 1, accuracy: 1e-9, cohort)
        }
    }
}
