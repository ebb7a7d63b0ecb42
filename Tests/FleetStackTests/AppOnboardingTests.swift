import XCTest
import FleetCore
@testable import FleetStack

/// Onboarding, the diagnostic, the plan job and the paywall, over HTTP.
final class AppOnboardingTests: XCTestCase {
    private let answers: JSONValue = [
        "practice_language": "en", "goal": "career", "scenario": "meetings", "topics": ["work", "travel"],
        "self_level": "intermediate", "commitment_minutes": 10, "reminder_time": "08:30",
    ]

    func testTopicsAndOnboardingValidation() throws {
        let app = try AppStack { $0.newUserEntitlement = "none" }
        let u = try app.signIn()
        let topics = try app.call("GET", "/topics", token: u.token).json["topics"]?.array ?? []
        XCTAssertGreaterThan(topics.count, 0)
        XCTAssertNotNil(topics.first?["name"]?.string)
        guard case .object(var bad) = answers else { return XCTFail() }
        bad["topics"] = ["work", "astrology"]
        let r = try app.call("POST", "/onboarding", json: .object(bad), token: u.token)
        XCTAssertEqual(r.status, 400)
        XCTAssertTrue(r.json["error"]?["message"]?.string?.contains("astrology") ?? false, r.text)
        bad["topics"] = ["work"]
        bad["reminder_time"] = "8.30"
        XCTAssertEqual(try app.call("POST", "/onboarding", json: .object(bad), token: u.token).status, 400)
    }

    func testDiagnosticToPlanToHome() throws {
        let app = try AppStack { $0.newUserEntitlement = "none"; $0.planDelayMs = 60_000 }
        let u = try app.signIn()
        let first = try app.call("POST", "/onboarding", json: answers, token: u.token)
        XCTAssertEqual(first.status, 200, first.text)
        let session = try XCTUnwrap(first.json["diagnostic_session"])
        XCTAssertEqual(session["kind"]?.string, "diagnostic")
        XCTAssertEqual(session["stage"]?.string, "reading")
        XCTAssertEqual(first.json["article"]?["id"]?.string, session["article_id"]?.string)
        XCTAssertTrue(["work", "travel"].contains(first.json["article"]?["topic"]?.string ?? ""), "the article follows the chosen topics")
        let repeated = try app.call("POST", "/onboarding", json: answers, token: u.token)
        XCTAssertEqual(repeated.json["diagnostic_session"]?["id"], session["id"], "a repeat returns the same diagnostic")
        XCTAssertEqual(try app.call("GET", "/me", token: u.token).json["onboarding"]?["status"]?.string, "completed")

        let s = try XCTUnwrap(session["id"]?.string)
        XCTAssertEqual(try app.call("POST", "/sessions/\(s)/reading-complete", token: u.token).status, 200)
        XCTAssertEqual(try app.presign(u, session: s, round: 2, clip: AppClips.speech()).response.errorCode, "stage_precondition",
                       "the diagnostic has one round")
        let a = try app.record(u, session: s, round: 1, clip: AppClips.speech())
        XCTAssertEqual(try app.waitTerminal(u, attempt: a).last["status"]?.string, "assessed", "no entitlement needed")
        XCTAssertEqual(try app.call("GET", "/sessions/\(s)", token: u.token).json["stage"]?.string, "completed")

        let early = try app.call("GET", "/plan", token: u.token)
        XCTAssertEqual(early.status, 404)
        XCTAssertEqual(early.errorCode, "plan_not_ready")
        XCTAssertEqual(early.json["error"]?["retryable"]?.bool, true)
        XCTAssertNil(try app.call("GET", "/paywall", token: u.token).json["plan_preview"])
        app.clock.advance(ms: 60_001)
        let plan = try app.call("GET", "/plan", token: u.token)
        XCTAssertEqual(plan.status, 200, plan.text)
        let days = try XCTUnwrap(plan.json["days"]?.array)
        XCTAssertEqual(days.count, 14)
        XCTAssertEqual(days.map { $0["day"]?.int ?? 0 }, Array(1...14))
        XCTAssertTrue(days.allSatisfy { ["fluency", "pronunciation", "completeness"].contains($0["focus"]?.string ?? "") })
        let home = try app.call("GET", "/home", token: u.token).json
        XCTAssertEqual(home["plan_day"]?.int, 1)
        XCTAssertEqual(home["today_quest"]?["article_id"], days[0]["article_id"])
        XCTAssertEqual(home["focus"], days[0]["focus"])
        XCTAssertEqual(try app.call("GET", "/paywall", token: u.token).json["plan_preview"]?.array?.count, 3)

        let settle = try app.call("POST", "/sessions/\(s)/complete", token: u.token, key: s)
        XCTAssertEqual(settle.status, 200, settle.text)
        XCTAssertEqual(settle.json["xp_awarded"]?.int, 0)
        XCTAssertEqual(settle.json["streak"]?["extended"]?.bool, false)
        XCTAssertEqual(try app.call("GET", "/me", token: u.token).json["stats"]?["sessions_completed"]?.int, 0)
    }

    func testPaywallListsProducts() throws {
        let app = try AppStack()
        let u = try app.signIn()
        let p = try app.call("GET", "/paywall", token: u.token).json
        let products = try XCTUnwrap(p["products"]?.array)
        XCTAssertGreaterThanOrEqual(products.count, 1)
        for product in products {
            XCTAssertNotNil(product["id"]?.string)
            XCTAssertTrue(product["period"]?.string?.hasPrefix("P") ?? false)
            XCTAssertNotNil(product["price"]?.double)
            XCTAssertNotNil(product["currency"]?.string)
            XCTAssertNotNil(product["trial_days"]?.int)
        }
        XCTAssertNotNil(p["projection"])
        XCTAssertNotNil(p["sample_n"]?.int)
    }
}
