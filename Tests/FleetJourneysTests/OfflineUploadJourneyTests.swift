import FleetClient
import FleetCore
@testable import FleetJourneys
import FleetMetrics
import XCTest

/// Flow 6: the PUT dies at a random byte, the user is offline, and the upload resumes.
final class OfflineUploadJourneyTests: XCTestCase {
    /// Upload URLs live 2 s and the user is offline 3 s: back online the presign is requested
    /// again under the same key (same attempt), the file is put again, and each round ends with
    /// exactly one attempt, assessed. (The stack counts expiry in whole seconds, so a URL lives
    /// between lifetime − 1 s and lifetime: with 1 s the fresh URL could lapse before its PUT on a
    /// loaded machine, and putUpload rightly presigned a third time — a flaky trace.)
    func testCutUploadRepresignsWithTheSameKeyAndKeepsOneAttemptPerRound() async throws {
        let h = try JourneyHarness { $0.uploadURLLifetimeS = 2 }
        defer { h.shutdown() }
        let world = h.world(probabilities: ["offlineUpload.fetch_evidence": 0, "offlineUpload.rate_feedback": 0]) {
            $0.offlineDuration = .constant(ms: 3_000)
        }
        let user = h.user(1, world: world)
        let (outcome, trace) = await h.walk(OfflineUpload(cutRound: 1), user)
        let log = trace.entries.map(\.description).joined(separator: "\n")
        XCTAssertEqual(outcome, .completed, log)
        XCTAssertEqual(trace.collapsedTemplates, [
            "POST /auth/anonymous", "GET /config", "GET /home", "POST /sessions", "POST /sessions/{id}/reading-complete",
            "POST /sessions/{id}/attempts", "PUT upload", "POST /sessions/{id}/attempts", "PUT upload",
            "POST /attempts/{id}/submit", "GET /attempts/{id}", "GET /attempts/{id}/exemplar",
            "POST /sessions/{id}/attempts", "PUT upload", "POST /attempts/{id}/submit", "GET /attempts/{id}",
            "POST /sessions/{id}/complete", "GET /home",
        ], log)
        // The cut PUT got no response; the second one was accepted.
        let puts = trace.entries.filter { $0.template == "PUT upload" }
        XCTAssertNil(puts[0].status, log)
        XCTAssertTrue((200..<300).contains(puts[1].status ?? 0), log)

        let session = try await h.questSession(of: user)
        let attempts = try h.attempts(session: session)
        XCTAssertEqual(attempts.map(\.round), [1, 2], "one attempt per round")
        XCTAssertEqual(attempts.map(\.status), ["assessed", "assessed"])
        XCTAssertEqual(h.recorder.snapshot(.testing).counters["uploads_cut"], 1)
        XCTAssertTrue(user.device.uploadQueue.isEmpty)
    }

    /// With URLs that outlive the offline spell the old URL is reused: no second presign.
    func testUnexpiredPresignIsReused() async throws {
        let h = try JourneyHarness()
        defer { h.shutdown() }
        let world = h.world(probabilities: ["offlineUpload.fetch_evidence": 0, "offlineUpload.rate_feedback": 0]) {
            $0.offlineDuration = .constant(ms: 200)
        }
        let user = h.user(2, world: world)
        let (outcome, trace) = await h.walk(OfflineUpload(cutRound: 2), user)
        XCTAssertEqual(outcome, .completed, trace.entries.map(\.description).joined(separator: "\n"))
        let t = trace.collapsedTemplates
        let round2 = try XCTUnwrap(t.lastIndex(of: "POST /sessions/{id}/attempts"))
        XCTAssertEqual(Array(t[round2...]), ["POST /sessions/{id}/attempts", "PUT upload", "POST /attempts/{id}/submit",
                                             "GET /attempts/{id}", "POST /sessions/{id}/complete", "GET /home"])
        XCTAssertEqual(trace.templates.filter { $0 == "PUT upload" }.count, 3)
        let attempts = try h.attempts(session: try await h.questSession(of: user))
        XCTAssertEqual(attempts.map(\.status), ["assessed", "assessed"])
    }
    /// The profile's `offline_rate` reaches every recording loop: at 1 both rounds of a daily
    /// quest are cut, resumed and assessed.
    func testOfflineRateCutsEveryUploadOfADailyQuest() async throws {
        let h = try JourneyHarness()
        defer { h.shutdown() }
        let world = h.world(probabilities: ["dailyQuest.fetch_evidence": 0, "dailyQuest.rate_feedback": 0]) {
            $0.offlineRate = 1
            $0.offlineDuration = .constant(ms: 100)
        }
        let user = h.user(4, world: world)
        let (outcome, trace) = await h.walk(DailyQuest(), user)
        XCTAssertEqual(outcome, .completed, trace.entries.map(\.description).joined(separator: "\n"))
        XCTAssertEqual(h.recorder.snapshot(.testing).counters["uploads_cut"], 2)
        XCTAssertEqual(trace.entries.filter { $0.template == "PUT upload" }.map { $0.status == nil }, [true, false, true, false])
        let attempts = try h.attempts(session: try await h.questSession(of: user))
        XCTAssertEqual(attempts.map(\.status), ["assessed", "assessed"])
    }

    /// The PUT step the journeys and the cohort warm-up share (`putUpload`): a URL that expired
    /// before the PUT is refused (`403`), presigned again under the same key — the same attempt —
    /// and put once more; the take is then accepted and the session holds one attempt for the round.
    func testExpiredURLIsPresignedAgainUnderTheSameKeyAndPutOnce() async throws {
        let h = try JourneyHarness { $0.uploadURLLifetimeS = 1 }
        defer { h.shutdown() }
        let user = h.user(5, world: h.world())
        try await user.launch()
        let home = try await user.openHome()
        let quest = try XCTUnwrap(home.questArticleId)
        var session = try await user.startSession(articleId: quest, kind: "daily")
        session = try user.expect(await user.client.readingComplete(session.id, user.credentials, intended: user.nextIntended,
                                                                     random: &user.random))
        let rec = h.recordings.recording, key = user.newKey()
        let trace = RequestTrace()
        try await RequestScope.with({ $0.trace = trace }) {
            let stale = try await user.requestUpload(session: session.id, round: 1, recording: rec, key: key)
            let expires = try XCTUnwrap(stale.expiresAtMillis)
            try await Task.sleep(nanoseconds: UInt64(max(0, expires - WallClock.nowMillis()) + 300) * 1_000_000)
            try await user.putUpload(stale, session: session.id, round: 1, recording: rec, key: key)
            let accepted = try user.expect(await user.client.submit(attempt: stale.attemptId, user.credentials,
                                                                    intended: user.nextIntended, random: &user.random))
            XCTAssertEqual(accepted.id, stale.attemptId)
        }
        XCTAssertEqual(trace.templates, ["POST /sessions/{id}/attempts", "PUT upload", "POST /sessions/{id}/attempts", "PUT upload",
                                         "POST /attempts/{id}/submit"], trace.dump)
        XCTAssertEqual(trace.entries[1].status, 403, trace.dump)
        XCTAssertTrue((200..<300).contains(trace.entries[3].status ?? 0), trace.dump)
        XCTAssertEqual(try h.attempts(session: session.id).map(\.round), [1], "the same key made no second attempt")
    }

    /// Stored bytes that do not match the declared sha256: `400 upload_checksum_mismatch` → the
    /// same file is put once more → still mismatched → the round fails with that code.
    func testChecksumMismatchRePutsOnceThenFails() async throws {
        let h = try JourneyHarness()
        defer { h.shutdown() }
        var bad = h.recordings.recording
        bad.sha256 = SHA256.hex(Array("not these bytes".utf8))
        let world = FleetWorld(client: h.client, recorder: h.recorder, recordings: FixedRecording(recording: bad),
                               behaviour: h.world().behaviour)
        let user = h.user(3, world: world)
        let (outcome, trace) = await h.walk(OfflineUpload(cutRound: 2), user)
        XCTAssertEqual(outcome, .failed)
        XCTAssertEqual(Array(trace.entries.suffix(4)).map(\.template),
                       ["PUT upload", "POST /attempts/{id}/submit", "PUT upload", "POST /attempts/{id}/submit"])
        XCTAssertEqual(trace.entries.filter { $0.template == "POST /attempts/{id}/submit" }.map(\.status), [400, 400])
        let exit = h.recorder.snapshot(.testing).journeys.first { $0.journey == "offlineUpload" }?.exits.first
        XCTAssertEqual(exit?.code, "upload_checksum_mismatch")
        XCTAssertEqual(exit?.step, "round1_reupload")
    }
}

/// One given recording for every round.
struct FixedRecording: RecordingSource {
    let recording: Recording
    func pick(language: String, round: Int, classMix: [String: Double], random: inout SeededRandom) -> Recording? { recording }
}
