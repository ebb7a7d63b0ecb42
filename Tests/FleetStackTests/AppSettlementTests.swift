import FleetTestSupport
import XCTest
import FleetCore
@testable import FleetStack

/// Settlement over HTTP: one per session, replays byte for byte, XP and streak rules.
final class AppSettlementTests: XCTestCase {
    func testDailyQuestSettlesOnceAndReplaysByteForByte() throws {
        let app = try AppStack()
        let u = try app.signIn()
        let s = try app.sessionReadyToComplete(u)
        XCTAssertEqual(try app.call("GET", "/sessions/\(s)", token: u.token).json["stage"]?.string, "round2_processing",
                       "round 2 assessed waits for complete")
        let first = try app.call("POST", "/sessions/\(s)/complete", token: u.token, key: s)
        XCTAssertEqual(first.status, 200, first.text)
        let j = first.json
        XCTAssertEqual(j["session_id"]?.string, s)
        XCTAssertEqual(j["replayed"]?.bool, false)
        let xp = try XCTUnwrap(j["xp_awarded"]?.int)
        XCTAssertTrue(xp == 50 || xp == 60, "daily base 50, +10 when improved: \(xp)")
        XCTAssertEqual(j["xp_total"]?.int, xp)
        XCTAssertEqual(j["streak"]?["current"]?.int, 1)
        XCTAssertEqual(j["streak"]?["extended"]?.bool, true)
        XCTAssertEqual(j["level"]?["current"]?.int, 1)
        XCTAssertEqual(j["achievements"]?.array?.first?["id"]?.string, "first_session")
        XCTAssertTrue(["improved", "same", "shorter_lost"].contains(j["outcome"]?.string ?? ""))

        let replay = try app.call("POST", "/sessions/\(s)/complete", token: u.token, key: s)
        XCTAssertEqual(replay.status, 200)
        XCTAssertEqual(replay.json["replayed"]?.bool, true)
        XCTAssertEqual(replay.text.replacingOccurrences(of: "\"replayed\":true", with: "\"replayed\":false"), first.text,
                       "byte for byte apart from replayed")
        let me = try app.call("GET", "/me", token: u.token).json
        XCTAssertEqual(me["stats"]?["xp"]?.int, xp, "a replay changes nothing")
        XCTAssertEqual(me["stats"]?["sessions_completed"]?.int, 1)
        XCTAssertEqual(me["stats"]?["streak"]?.int, 1)
        let home = try app.call("GET", "/home", token: u.token).json
        XCTAssertEqual(home["today_quest"]?["status"]?.string, "completed")
        XCTAssertEqual(home["resume_session"], .null)
        XCTAssertEqual(home["streak"]?.int, 1)
        XCTAssertEqual(try app.call("GET", "/sessions/\(s)", token: u.token).json["stage"]?.string, "completed")
    }

    func testCompleteBeforeRound2IsAssessedNamesTheMissingRound() throws {
        let app = try AppStack()
        let u = try app.signIn()
        let s = try app.startSession(u)
        let a = try app.record(u, session: s, round: 1, clip: AppClips.speech())
        _ = try app.waitTerminal(u, attempt: a)
        let r = try app.call("POST", "/sessions/\(s)/complete", token: u.token, key: s)
        XCTAssertEqual(r.status, 409)
        XCTAssertEqual(r.errorCode, "stage_precondition")
        XCTAssertEqual(r.json["error"]?["details"]?["missing_round"]?.int, 2)
        XCTAssertEqual(try app.call("GET", "/me", token: u.token).json["stats"]?["xp"]?.int, 0)
    }

    func testCompleteKeyMustBeTheSessionID() throws {
        let app = try AppStack()
        let u = try app.signIn()
        let s = try app.startSession(u)
        XCTAssertEqual(try app.call("POST", "/sessions/\(s)/complete", token: u.token, key: "other").errorCode, "invalid_request")
        XCTAssertEqual(try app.call("POST", "/sessions/\(s)/complete", token: u.token).errorCode, "invalid_request")
    }

    func testFiftyConcurrentCompletesSettleOnce() throws {
        let app = try AppStack()
        let u = try app.signIn()
        let s = try app.sessionReadyToComplete(u)
        let collected = Box<[String]>([])
        let group = DispatchGroup()
        for _ in 0..<50 {
            group.enter()
            Thread.detachNewThread {
                defer { group.leave() }
                if let r = try? app.call("POST", "/sessions/\(s)/complete", token: u.token, key: s), r.status == 200 {
                    collected.append(r.text)
                }
            }
        }
        XCTAssertEqual(group.wait(timeout: .now() + 30), .success)
        let bodies = collected.value
        XCTAssertEqual(bodies.count, 50)
        let firsts = bodies.filter { $0.contains("\"replayed\":false") }
        XCTAssertEqual(firsts.count, 1, "exactly one first settlement")
        let normalized = Set(bodies.map { $0.replacingOccurrences(of: "\"replayed\":true", with: "\"replayed\":false") })
        XCTAssertEqual(normalized.count, 1, "every replay is the first settlement")
        let xp = try XCTUnwrap((try? JSONValue.parse(firsts[0]))?["xp_awarded"]?.int)
        XCTAssertEqual(try app.call("GET", "/me", token: u.token).json["stats"]?["xp"]?.int, xp)
    }

    func testSameArticleWithinSevenDaysEarnsHalfAndStreakGrowsOncePerDay() throws {
        let app = try AppStack()
        let u = try app.signIn()
        let clip = AppClips.speech()
        // Identical rounds give outcome "same", so the XP is exactly the base.
        let s1 = try app.sessionReadyToComplete(u, article: "en-food-001", kind: "free", round1: clip, round2: clip)
        let one = try app.call("POST", "/sessions/\(s1)/complete", token: u.token, key: s1).json
        XCTAssertEqual(one["outcome"]?.string, "same")
        XCTAssertEqual(one["xp_awarded"]?.int, 30)
        let s2 = try app.sessionReadyToComplete(u, article: "en-food-001", kind: "free", round1: clip, round2: clip)
        XCTAssertNotEqual(s1, s2)
        let two = try app.call("POST", "/sessions/\(s2)/complete", token: u.token, key: s2).json
        XCTAssertEqual(two["xp_awarded"]?.int, 15, "repeat discount")
        XCTAssertEqual(two["xp_total"]?.int, 45)
        XCTAssertEqual(two["streak"]?["current"]?.int, 1)
        XCTAssertEqual(two["streak"]?["extended"]?.bool, false, "at most +1 per local day")
        let s3 = try app.sessionReadyToComplete(u, article: "en-food-002", kind: "daily", round1: clip, round2: clip)
        XCTAssertEqual(try app.call("POST", "/sessions/\(s3)/complete", token: u.token, key: s3).json["xp_awarded"]?.int, 50)
    }

    func testOutcomeRule() {
        XCTAssertEqual(Rules.outcome(round1: 60, round2: 63), "improved")
        XCTAssertEqual(Rules.outcome(round1: 60, round2: 62), "same")
        XCTAssertEqual(Rules.outcome(round1: 60, round2: 58), "same")
        XCTAssertEqual(Rules.outcome(round1: 60, round2: 57), "shorter_lost")
    }
}
