import XCTest
import FleetCore
@testable import FleetStack

/// PATCH /me, push token, deleting training data and the account, over HTTP.
final class AppAccountTests: XCTestCase {
    func testPatchSettingsValidatesAndTheSessionKeepsItsLanguage() throws {
        let app = try AppStack()
        let u = try app.signIn()
        let s = try app.startSession(u)
        let ok = try app.call("PATCH", "/me", json: ["settings": ["ui_locale": "zh-Hans", "practice_languages": ["zh-Hans", "en"]]], token: u.token)
        XCTAssertEqual(ok.status, 200, ok.text)
        XCTAssertEqual(ok.json["settings"]?["ui_locale"]?.string, "zh-Hans")
        XCTAssertEqual(ok.json["settings"]?["practice_languages"], ["zh-Hans", "en"])
        XCTAssertEqual(try app.call("GET", "/sessions/\(s)", token: u.token).json["language"]?.string, "en")
        XCTAssertEqual(try app.call("GET", "/home", token: u.token).json["today_quest"]?["article_id"]?.string?.hasPrefix("zh-"), true)
        let follow = try app.call("PATCH", "/me", json: ["settings": ["ui_locale": nil]], token: u.token)
        XCTAssertEqual(follow.status, 200)
        XCTAssertEqual(follow.json["settings"]?["ui_locale"], .null)
        for bad: JSONValue in [["settings": ["ui_locale": "xx-YY"]], ["settings": ["practice_languages": []]],
                               ["settings": ["practice_languages": ["fr"]]], ["settings": ["theme": "dark"]], [:]] {
            let r = try app.call("PATCH", "/me", json: bad, token: u.token)
            XCTAssertEqual(r.status, 400, "\(bad)")
            XCTAssertEqual(r.errorCode, "invalid_request")
        }
    }

    func testPushToken() throws {
        let app = try AppStack()
        let u = try app.signIn()
        XCTAssertEqual(try app.call("PUT", "/me/push-token", json: ["token": "apns-abc"], token: u.token).status, 204)
        XCTAssertEqual(try app.call("PUT", "/me/push-token", json: [:], token: u.token).status, 400)
    }

    func testDeleteTrainingDataLeavesNothingOfTheOldData() throws {
        let app = try AppStack()
        let u = try app.signIn()
        let s = try app.sessionReadyToComplete(u)
        XCTAssertEqual(try app.call("POST", "/sessions/\(s)/complete", token: u.token, key: s).status, 200)
        let attempt = try app.call("GET", "/sessions/\(s)", token: u.token).json["rounds"]?[0]?["attempt_id"]?.string ?? ""
        let r = try app.call("DELETE", "/me/training-data", token: u.token)
        XCTAssertEqual(r.status, 202, r.text)
        XCTAssertNotNil(r.json["job_id"]?.string)
        XCTAssertNotNil(RFC3339.parseMillis(r.json["purge_backups_by"]?.string ?? ""))
        let me = try app.call("GET", "/me", token: u.token).json
        XCTAssertEqual(me["stats"]?["xp"]?.int, 0)
        XCTAssertEqual(me["stats"]?["streak"]?.int, 0)
        XCTAssertEqual(me["stats"]?["sessions_completed"]?.int, 0)
        XCTAssertEqual(me["entitlement"]?["status"]?.string, "active", "entitlement is kept")
        XCTAssertEqual(try app.call("GET", "/sessions/\(s)", token: u.token).status, 404)
        XCTAssertEqual(try app.call("GET", "/attempts/\(attempt)", token: u.token).status, 404)
        XCTAssertEqual(try app.call("POST", "/sessions/\(s)/complete", token: u.token, key: s).status, 404)
        let growth = try app.call("GET", "/growth", token: u.token).json
        XCTAssertEqual(growth["weeks"]?.array?.count, 0)
        XCTAssertEqual(growth["recent"]?.array?.count, 0)
        let home = try app.call("GET", "/home", token: u.token).json
        XCTAssertEqual(home["streak"]?.int, 0)
        XCTAssertEqual(home["today_quest"]?["status"]?.string, "not_started")
        // The repeat-discount history went too: the same article earns full XP again.
        let again = try app.sessionReadyToComplete(u, round1: AppClips.speech(), round2: AppClips.speech())
        XCTAssertEqual(try app.call("POST", "/sessions/\(again)/complete", token: u.token, key: again).json["xp_awarded"]?.int, 50)
    }

    func testDeleteAccountRetiresTheInstallIDAndTokens() throws {
        let app = try AppStack()
        let u = try app.signIn(install: "doomed")
        _ = try app.startSession(u)
        XCTAssertEqual(try app.call("DELETE", "/me", token: u.token).status, 204)
        XCTAssertEqual(try app.call("GET", "/me", token: u.token).status, 401)
        XCTAssertEqual(try app.call("POST", "/auth/refresh", json: ["refresh_token": .string(u.refresh)]).status, 401)
        let again = try app.call("POST", "/auth/anonymous", json: ["install_id": "doomed", "timezone": "UTC", "locale": "en"])
        XCTAssertEqual(again.status, 403)
        XCTAssertEqual(again.errorCode, "forbidden")
        let fresh = try app.signIn(install: "reborn")
        XCTAssertNotEqual(fresh.id, u.id)
        XCTAssertEqual(try app.call("GET", "/me", token: fresh.token).status, 200)
    }

    func testDeleteSessionKeepsXPButDropsTheGrowthPoint() throws {
        let app = try AppStack()
        let u = try app.signIn()
        let s = try app.sessionReadyToComplete(u)
        let xp = try app.call("POST", "/sessions/\(s)/complete", token: u.token, key: s).json["xp_awarded"]?.int
        XCTAssertEqual(try app.call("GET", "/growth", token: u.token).json["recent"]?.array?.count, 1)
        XCTAssertEqual(try app.call("DELETE", "/sessions/\(s)", token: u.token).status, 204)
        XCTAssertEqual(try app.call("GET", "/sessions/\(s)", token: u.token).status, 404)
        XCTAssertEqual(try app.call("GET", "/growth", token: u.token).json["recent"]?.array?.count, 0)
        let me = try app.call("GET", "/me", token: u.token).json
        XCTAssertEqual(me["stats"]?["xp"]?.int, xp)
        XCTAssertEqual(me["stats"]?["sessions_completed"]?.int, 1)
        XCTAssertEqual(me["stats"]?["streak"]?.int, 1)
    }
}
