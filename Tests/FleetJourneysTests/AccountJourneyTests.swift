import FleetClient
import FleetCore
import FleetJourneys
import FleetMetrics
import XCTest

/// Flows 8 (delete data) and 9 (change languages), from a warmed-up `returning` user (one completed session).
final class AccountJourneyTests: XCTestCase {
    func testDeletingTrainingDataLeavesGrowthEmptyAndStreakZero() async throws {
        let h = try JourneyHarness()
        defer { h.shutdown() }
        let user = h.user(1, world: h.world(probabilities: ["deleteData.delete_session": 0, "deleteData.delete_account": 0,
                                                            "deleteData.cancel": 0]), cohort: "returning")
        let ready = await Population.prepare(user)
        XCTAssertTrue(ready)
        let growthBefore = try await h.growth(user), meBefore = try await h.me(user)
        XCTAssertFalse(growthBefore.isEmpty, "the warm-up completed a session")
        XCTAssertEqual(meBefore.streak, 1)
        let (outcome, trace) = await h.walk(DeleteData(), user)
        XCTAssertEqual(outcome, .completed, "\(String(describing: h.exit(of: "deleteData")))\n\(trace.dump)")
        XCTAssertEqual(trace.templates, ["GET /config", "GET /me", "DELETE /me/training-data", "GET /growth", "GET /home", "GET /me"],
                       trace.dump)
        XCTAssertEqual(trace.entries[2].status, 202)
        let growthAfter = try await h.growth(user)
        XCTAssertTrue(growthAfter.isEmpty)
        let me = try await h.me(user)
        XCTAssertEqual([me.streak, me.xp, me.sessionsCompleted], [0, 0, 0])
        // Entitlement and onboarding are kept (API.md: deletion scope).
        XCTAssertEqual(me.entitlement.status, "trial")
        XCTAssertTrue(me.isOnboarded)
    }

    func testDeletingTheAccountSignsInAgainWithANewInstallId() async throws {
        let h = try JourneyHarness()
        defer { h.shutdown() }
        let user = h.user(2, world: h.world(probabilities: ["deleteData.delete_session": 0, "deleteData.delete_account": 1,
                                                            "deleteData.cancel": 0]), cohort: "returning")
        let ready = await Population.prepare(user)
        XCTAssertTrue(ready)
        let oldInstall = user.credentials.installId, oldUser = user.credentials.userId
        let (outcome, trace) = await h.walk(DeleteData(), user)
        XCTAssertEqual(outcome, .completed, trace.dump)
        XCTAssertEqual(trace.templates, ["GET /config", "GET /me", "DELETE /me", "POST /auth/anonymous", "GET /config", "GET /me"],
                       trace.dump)
        XCTAssertNotEqual(user.credentials.installId, oldInstall)
        XCTAssertNotEqual(user.credentials.userId, oldUser)
        let newMe = try await h.me(user)
        XCTAssertFalse(newMe.isOnboarded)
        // The old install id is refused (API.md: auth after deletion).
        let old = Credentials(installId: oldInstall, locale: "en-US", timezone: "UTC")
        var random = SeededRandom(seed: 3, stream: 3)
        guard case let .failure(e) = await h.client.signIn(old, intended: MonotonicClock.now(), random: &random) else {
            return XCTFail("the deleted account's install id signed in")
        }
        XCTAssertEqual(e.status, 403)
    }

    func testDeletingOneSessionRemovesItFromGrowthAndKeepsXP() async throws {
        let h = try JourneyHarness()
        defer { h.shutdown() }
        let user = h.user(3, world: h.world(probabilities: ["deleteData.delete_session": 1]), cohort: "returning")
        let ready = await Population.prepare(user)
        XCTAssertTrue(ready)
        let before = try await h.growth(user)
        let xp = try await h.me(user).xp
        XCTAssertEqual(before.recentSessionIds.count, 1)
        let (outcome, trace) = await h.walk(DeleteData(), user)
        XCTAssertEqual(outcome, .completed, trace.dump)
        XCTAssertEqual(trace.templates, ["GET /config", "GET /me", "GET /growth", "GET /me", "DELETE /sessions/{id}", "GET /growth",
                                         "GET /me"], trace.dump)
        let after = try await h.growth(user), xpAfter = try await h.me(user).xp
        XCTAssertTrue(after.recentSessionIds.isEmpty)
        XCTAssertEqual(xpAfter, xp)
        XCTAssertGreaterThan(xp, 0)
    }

    /// UI locale and practice languages change; home is refetched; the session left in progress
    /// keeps its language.
    func testChangingLanguagesKeepsTheInProgressSessionsLanguage() async throws {
        let h = try JourneyHarness()
        defer { h.shutdown() }
        let p = ["changeLanguages.session_in_progress": 1.0, "changeLanguages.change_ui_locale": 1,
                 "changeLanguages.follow_device": 0, "changeLanguages.change_practice": 1, "changeLanguages.finish_session": 0]
        let user = h.user(4, world: h.world(probabilities: p), cohort: "subscriber")
        let (outcome, trace) = await h.walk(ChangeLanguages(), user)
        XCTAssertEqual(outcome, .completed, "\(String(describing: h.exit(of: "changeLanguages")))\n\(trace.dump)")
        XCTAssertEqual(trace.templates, [
            "POST /auth/anonymous", "GET /config", "GET /home", "POST /sessions", "POST /sessions/{id}/reading-complete",
            "GET /me", "PATCH /me", "GET /home", "PATCH /me", "GET /home", "GET /sessions/{id}",
        ], trace.dump)
        let me = try await h.me(user)
        XCTAssertEqual(me.uiLocale, "zh-Hans")
        XCTAssertEqual(user.credentials.locale, "zh-Hans")
        XCTAssertNotEqual(me.practiceLanguages, ["en"])
        XCTAssertFalse(me.practiceLanguages.isEmpty)
        let sessionId = try await h.questSession(of: user)
        let body = try await h.get("GET /sessions/{id}", "/sessions/\(sessionId)", as: user)
        let session = try XCTUnwrap(SessionInfo(body))
        XCTAssertEqual(session.language, "en")
        XCTAssertEqual(session.stage, "round1")
    }
}
