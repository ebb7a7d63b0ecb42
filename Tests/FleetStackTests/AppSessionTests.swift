import XCTest
import FleetCore
@testable import FleetStack

/// Session creation, idempotency, entitlement, stages and ownership, over HTTP.
final class AppSessionTests: XCTestCase {
    func testCreateIsIdempotentPerKeyAndReturnsTheInProgressSession() throws {
        let app = try AppStack()
        let u = try app.signIn()
        let body: JSONValue = ["article_id": "en-daily-002", "kind": "daily"]
        let first = try app.call("POST", "/sessions", json: body, token: u.token, key: "k1")
        XCTAssertEqual(first.status, 201, first.text)
        XCTAssertEqual(first.json["stage"]?.string, "reading")
        XCTAssertEqual(first.json["language"]?.string, "en")
        XCTAssertEqual(first.json["kind"]?.string, "daily")
        XCTAssertNotNil(RFC3339.parseMillis(first.json["created_at"]?.string ?? ""))
        let repeatSame = try app.call("POST", "/sessions", json: body, token: u.token, key: "k1")
        XCTAssertEqual(repeatSame.status, 201)
        XCTAssertEqual(repeatSame.body, first.body, "same key and body → the first result")
        let otherBody = try app.call("POST", "/sessions", json: ["article_id": "en-daily-003", "kind": "daily"], token: u.token, key: "k1")
        XCTAssertEqual(otherBody.status, 409)
        XCTAssertEqual(otherBody.errorCode, "idempotency_conflict")
        let otherKey = try app.call("POST", "/sessions", json: body, token: u.token, key: "k2")
        XCTAssertEqual(otherKey.status, 200, "an in-progress session for the article is returned")
        XCTAssertEqual(otherKey.json["id"]?.string, first.json["id"]?.string)
    }

    func testBodiesAreComparedAsParsedJSON() throws {
        let app = try AppStack()
        let u = try app.signIn()
        let a = try app.call("POST", "/sessions", token: u.token, key: "k", headers: [("Content-Type", "application/json")],
                             body: Array(#"{"article_id":"en-daily-002","kind":"daily"}"#.utf8))
        let b = try app.call("POST", "/sessions", token: u.token, key: "k", headers: [("Content-Type", "application/json")],
                             body: Array(#"{ "kind" : "daily", "article_id" : "en-daily-002" }"#.utf8))
        XCTAssertEqual(a.status, 201)
        XCTAssertEqual(b.status, 201)
        XCTAssertEqual(a.body, b.body)
    }

    func testCreateNeedsAnIdempotencyKey() throws {
        let app = try AppStack()
        let u = try app.signIn()
        let r = try app.call("POST", "/sessions", json: ["article_id": "en-daily-001", "kind": "daily"], token: u.token)
        XCTAssertEqual(r.status, 400)
        XCTAssertEqual(r.errorCode, "invalid_request")
    }

    func testNoEntitlementIs402() throws {
        let app = try AppStack { $0.newUserEntitlement = "none" }
        let u = try app.signIn()
        let r = try app.call("POST", "/sessions", json: ["article_id": "en-daily-001", "kind": "daily"], token: u.token, key: "k")
        XCTAssertEqual(r.status, 402)
        XCTAssertEqual(r.errorCode, "entitlement_required")
        XCTAssertEqual(r.json["error"]?["retryable"]?.bool, false)
    }

    func testLockedArticleIs403WithUnlockHint() throws {
        let app = try AppStack()
        let u = try app.signIn()
        let r = try app.call("POST", "/sessions", json: ["article_id": "en-travel-001", "kind": "free"], token: u.token, key: "k")
        XCTAssertEqual(r.status, 403)
        XCTAssertEqual(r.errorCode, "forbidden")
        XCTAssertFalse(r.json["error"]?["details"]?["unlock_hint"]?.string?.isEmpty ?? true, r.text)
    }

    func testBadKindAndUnknownArticleAreInvalid() throws {
        let app = try AppStack()
        let u = try app.signIn()
        XCTAssertEqual(try app.call("POST", "/sessions", json: ["article_id": "en-daily-001", "kind": "diagnostic"],
                                    token: u.token, key: "a").errorCode, "invalid_request")
        XCTAssertEqual(try app.call("POST", "/sessions", json: ["article_id": "nope", "kind": "daily"],
                                    token: u.token, key: "b").errorCode, "invalid_request")
    }

    func testReadingCompleteMovesToRound1AndIsIdempotent() throws {
        let app = try AppStack()
        let u = try app.signIn()
        let id = try app.call("POST", "/sessions", json: ["article_id": "en-daily-001", "kind": "daily"], token: u.token, key: "k")
            .json["id"]?.string ?? ""
        let early = try app.presign(u, session: id, round: 1, clip: AppClips.speech())
        XCTAssertEqual(early.response.status, 409, "round 1 while reading")
        XCTAssertEqual(early.response.errorCode, "stage_precondition")
        for _ in 0..<2 {
            let r = try app.call("POST", "/sessions/\(id)/reading-complete", token: u.token)
            XCTAssertEqual(r.status, 200)
            XCTAssertEqual(r.json["stage"]?.string, "round1")
        }
        let wrongRound = try app.presign(u, session: id, round: 2, clip: AppClips.speech())
        XCTAssertEqual(wrongRound.response.status, 409)
        XCTAssertEqual(wrongRound.response.errorCode, "stage_precondition")
        XCTAssertEqual(wrongRound.response.json["error"]?["details"]?["stage"]?.string, "round1")
    }

    func testAnotherUsersSessionIs403AndUnknownIs404() throws {
        let app = try AppStack()
        let owner = try app.signIn()
        let other = try app.signIn()
        let s = try app.startSession(owner)
        let a = try app.record(owner, session: s, round: 1, clip: AppClips.speech())
        XCTAssertEqual(try app.call("GET", "/sessions/\(s)", token: owner.token).status, 200)
        let foreign = try app.call("GET", "/sessions/\(s)", token: other.token)
        XCTAssertEqual(foreign.status, 403)
        XCTAssertEqual(foreign.errorCode, "forbidden")
        XCTAssertEqual(try app.call("GET", "/attempts/\(a)", token: other.token).status, 403)
        XCTAssertEqual(try app.call("POST", "/attempts/\(a)/submit", token: other.token).status, 403)
        XCTAssertEqual(try app.call("POST", "/sessions/\(s)/complete", token: other.token, key: s).status, 403)
        let unknown = try app.call("GET", "/sessions/ses_nope", token: owner.token)
        XCTAssertEqual(unknown.status, 404)
        XCTAssertEqual(unknown.errorCode, "not_found")
        XCTAssertEqual(try app.call("GET", "/attempts/att_nope", token: owner.token).status, 404)
    }

    func testHomeShowsTheResumableSessionAndTheQuestInProgress() throws {
        let app = try AppStack()
        let u = try app.signIn()
        let fresh = try app.call("GET", "/home", token: u.token).json
        XCTAssertEqual(fresh["today_quest"]?["status"]?.string, "not_started")
        XCTAssertEqual(fresh["resume_session"], .null)
        XCTAssertEqual(fresh["streak"]?.int, 0)
        let s = try app.startSession(u)
        let home = try app.call("GET", "/home", token: u.token).json
        XCTAssertEqual(home["today_quest"]?["status"]?.string, "in_progress")
        XCTAssertEqual(home["today_quest"]?["session_id"]?.string, s)
        XCTAssertEqual(home["resume_session"]?["id"]?.string, s)
        XCTAssertEqual(home["resume_session"]?["stage"]?.string, "round1")
    }

    /// A user who onboarded and has not finished the diagnostic starts today's quest, whose
    /// article is the diagnostic's: the request for a daily session gets a new daily session
    /// (201), concurrent repeats under its key all get that first answer replayed, and a second
    /// request for the same article and kind returns it with 200.
    func testDailyRequestNeverReturnsTheDiagnosticInProgress() throws {
        let app = try AppStack()
        let u = try app.signIn()
        let onboarding = try app.call("POST", "/onboarding", json: [
            "practice_language": "en", "goal": "work", "scenario": "small_talk", "topics": ["daily-life"],
            "self_level": "intermediate", "commitment_minutes": 10, "reminder_time": "08:30"], token: u.token)
        XCTAssertEqual(onboarding.status, 200, onboarding.text)
        let diagnostic = try XCTUnwrap(onboarding.json["diagnostic_session"]?["id"]?.string)
        let article = try XCTUnwrap(onboarding.json["diagnostic_session"]?["article_id"]?.string)
        let quest = try app.call("GET", "/home", token: u.token).json["today_quest"]?["article_id"]?.string
        XCTAssertEqual(quest, article, "precondition: today's quest is the diagnostic's article")

        let body: JSONValue = ["article_id": .string(article), "kind": "daily"]
        let answers = AppStack.concurrently(8) { _ in try? app.call("POST", "/sessions", json: body, token: u.token, key: "quest") }
        XCTAssertEqual(answers.count, 8)
        XCTAssertEqual(Set(answers.map(\.status)), [201], answers.map(\.text).joined(separator: "\n"))
        XCTAssertEqual(Set(answers.map(\.body)).count, 1, "every repeat replays the first answer")
        let daily = try XCTUnwrap(answers.first?.json)
        XCTAssertEqual(daily["kind"]?.string, "daily")
        XCTAssertNotEqual(daily["id"]?.string, diagnostic)

        let again = try app.call("POST", "/sessions", json: body, token: u.token, key: "quest-2")
        XCTAssertEqual(again.status, 200, again.text)
        XCTAssertEqual(again.json["id"]?.string, daily["id"]?.string)
        let free = try app.call("POST", "/sessions", json: ["article_id": .string(article), "kind": "free"], token: u.token, key: "f")
        XCTAssertEqual(free.status, 201, "a free request gets its own session, not the daily one")
        XCTAssertEqual(free.json["kind"]?.string, "free")
        XCTAssertEqual(try app.call("GET", "/sessions/\(diagnostic)", token: u.token).json["stage"]?.string, "reading",
                       "the diagnostic is left as it was")
    }
}
