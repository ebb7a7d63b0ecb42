import FleetClient
import FleetCore
import FleetJourneys
import FleetMetrics
import XCTest

/// Flow 4: the app dies at a step, comes back from its device state and resumes or abandons.
final class KilledAppJourneyTests: XCTestCase {
    static let resumeProbabilities = ["killAndResume.abandon": 0.0, "killAndResume.fetch_evidence": 1, "killAndResume.rate_feedback": 1]

    /// Killed the instant round 2's upload starts: the relaunch signs in from the keychain (no new
    /// auth), drains the upload queue (same key: the same attempt, a fresh URL), shows the resume
    /// sheet, polls round 2 and settles exactly once.
    func testKilledDuringRound2UploadResumesAndSettlesOnce() async throws {
        let h = try JourneyHarness()
        defer { h.shutdown() }
        let user = h.user(1, world: h.world(probabilities: Self.resumeProbabilities))
        let (outcome, trace) = await h.walk(KillAndResume(killStep: "round2_upload", killWindowMs: 0), user)
        let log = trace.entries.map(\.description).joined(separator: "\n")
        XCTAssertEqual(outcome, .completed, log)
        XCTAssertEqual(h.recorder.snapshot(.testing).counters["app_kills"], 1, log)

        let t = trace.collapsedTemplates
        XCTAssertEqual(t.filter { $0 == "POST /auth/anonymous" }.count, 1, "tokens survive the kill:\n\(log)")
        let relaunch = try XCTUnwrap(t.lastIndex(of: "GET /config"))
        XCTAssertGreaterThan(relaunch, 1)
        let tail = Array(t[(relaunch + 1)...])
        let resume = ["GET /home", "GET /sessions/{id}", "GET /attempts/{id}", "POST /sessions/{id}/complete", "GET /home"]
        let drained = ["POST /sessions/{id}/attempts", "PUT upload", "POST /attempts/{id}/submit"]
        XCTAssertEqual(tail, drained + resume, "after the relaunch:\n\(tail.joined(separator: "\n"))")
        XCTAssertTrue(user.device.uploadQueue.isEmpty)
        XCTAssertNil(user.device.pendingSettlement)

        let session = try await h.questSession(of: user)
        let s = try await h.get("GET /sessions/{id}", "/sessions/\(session)", as: user)
        XCTAssertEqual(s["stage"]?.string, "completed")
        let me = try await h.get("GET /me", "/me", as: user)
        XCTAssertEqual(me["stats"]?["sessions_completed"]?.int, 1)
        let completes = trace.entries.filter { $0.template == "POST /sessions/{id}/complete" }
        XCTAssertEqual(completes.map(\.status), [200])
        // Round 2 holds exactly one attempt: the drained take is the killed one, not a new one.
        let attempts = try h.attempts(session: session)
        XCTAssertEqual(attempts.filter { $0.round == 2 }.map(\.status), ["assessed"])
    }

    /// Kills at several steps side by side: every user ends with one settled session and none with
    /// a duplicate settlement; kills that landed inside a transfer show up as aborted requests.
    func testKillsAtManyStepsEachSettleOnce() async throws {
        let h = try JourneyHarness()
        defer { h.shutdown() }
        let world = h.world(probabilities: Self.resumeProbabilities)
        let steps = ["create_session", "reading_complete", "round1_record", "round1_submit", "round1_processing", "feedback",
                     "round2_processing", "complete"]
        let users = steps.indices.map { h.user(10 + $0, world: world, seed: 100 + UInt64($0)) }
        let outcomes = await withTaskGroup(of: (Int, JourneyOutcome).self) { group in
            for (i, u) in users.enumerated() {
                group.addTask { (i, await h.walk(KillAndResume(killStep: steps[i]), u).0) }
            }
            var out = [JourneyOutcome](repeating: .failed, count: users.count)
            for await (i, o) in group { out[i] = o }
            return out
        }
        for (i, u) in users.enumerated() {
            XCTAssertEqual(outcomes[i], .completed, "killed at \(steps[i])")
            let me = try await h.get("GET /me", "/me", as: u)
            XCTAssertEqual(me["stats"]?["sessions_completed"]?.int, 1, "killed at \(steps[i])")
            let xp = me["stats"]?["xp"]?.int ?? -1
            XCTAssertGreaterThan(xp, 0, "killed at \(steps[i])")
        }
        let results = h.recorder.snapshot(.testing)
        XCTAssertGreaterThanOrEqual(results.counters["app_kills"] ?? 0, Int64(steps.count - 1))
        // One first settlement per user; replays (a kill after complete went out) are kept apart.
        let first = results.metric("settlement")?.corrected.count ?? 0
        let replays = results.metric("settlement_replay")?.corrected.count ?? 0
        XCTAssertEqual(first + replays, Int64(steps.count))
        XCTAssertLessThanOrEqual(replays, 1)
    }

    /// "Abandon" on the resume sheet: `POST /sessions/{id}/abandon`, home without a resume session.
    func testAbandonOnTheResumeSheet() async throws {
        let h = try JourneyHarness()
        defer { h.shutdown() }
        let user = h.user(3, world: h.world(probabilities: ["killAndResume.abandon": 1]))
        let (outcome, trace) = await h.walk(KillAndResume(killStep: "round1_processing"), user)
        XCTAssertEqual(outcome, .abandoned)
        let t = trace.collapsedTemplates
        XCTAssertEqual(Array(t.suffix(3)), ["GET /home", "POST /sessions/{id}/abandon", "GET /home"],
                       t.joined(separator: "\n"))
        let home = try await h.get("GET /home", "/home", as: user)
        XCTAssertTrue(home["resume_session"]?.isNull ?? false, home.serialized())
        let journeys = h.recorder.snapshot(.testing).journeys
        XCTAssertEqual(journeys.first { $0.journey == "killAndResume" }?.exits.first?.step, "resume_sheet")
    }

    /// The profile's `kill_rate` reaches the daily quest: at 1 every user is killed somewhere on
    /// the way and still ends with one settled session.
    func testKillRateKillsDailyQuestUsersWhoStillSettleOnce() async throws {
        let h = try JourneyHarness()
        defer { h.shutdown() }
        let world = h.world(probabilities: ["dailyQuest.abandon": 0]) { $0.killRate = 1 }
        let users = (0..<3).map { h.user(20 + $0, world: world, seed: 7 + UInt64($0)) }
        let outcomes = await withTaskGroup(of: JourneyOutcome.self) { group in
            for u in users { group.addTask { await h.walk(DailyQuest(), u).0 } }
            return await group.reduce(into: []) { $0.append($1) }
        }
        XCTAssertEqual(outcomes, [.completed, .completed, .completed])
        for u in users {
            let me = try await h.get("GET /me", "/me", as: u)
            XCTAssertEqual(me["stats"]?["sessions_completed"]?.int, 1)
        }
        let results = h.recorder.snapshot(.testing)
        XCTAssertGreaterThanOrEqual(results.counters["app_kills"] ?? 0, 2)
        let funnel = results.journeys.first { $0.journey == "dailyQuest" }?.steps.map(\.step) ?? []
        XCTAssertTrue(funnel.contains("relaunch"), funnel.joined(separator: ", "))
    }

    /// Flow 4 step 3: the app died after `POST /complete` went out but before the settlement came
    /// back; on relaunch it replays with the same key and gets the same settlement, `replayed: true`,
    /// with nothing changed (XP, counts) and the replay kept out of `settlement`.
    func testRelaunchReplaysAnUnseenSettlement() async throws {
        let h = try JourneyHarness()
        defer { h.shutdown() }
        let user = h.user(30, world: h.world(probabilities: ["fetch_evidence": 0]))
        try await user.launch()
        let home = try await user.openHome()
        let session = try await user.startSession(articleId: XCTUnwrap(home.questArticleId), kind: "daily")
        let played = try await user.playSession(session)
        let first = try XCTUnwrap(played)
        XCTAssertFalse(first.replayed)
        let xpBefore = try await h.get("GET /me", "/me", as: user)["stats"]?["xp"]?.int

        user.device.pendingSettlement = session.id  // as if the response had been lost with the app
        let replayed = try await user.relaunch()
        let replay = try XCTUnwrap(replayed)
        XCTAssertTrue(replay.replayed)
        XCTAssertEqual(replay.canonical, first.canonical, "a replay is the first settlement apart from `replayed`")
        XCTAssertNil(user.device.pendingSettlement)
        let me = try await h.get("GET /me", "/me", as: user)
        XCTAssertEqual(me["stats"]?["xp"]?.int, xpBefore)
        XCTAssertEqual(me["stats"]?["sessions_completed"]?.int, 1)
        let results = h.recorder.snapshot(.testing)
        XCTAssertEqual(results.metric("settlement")?.corrected.count, 1)
        XCTAssertEqual(results.metric("settlement_replay")?.corrected.count, 1)
    }
}

