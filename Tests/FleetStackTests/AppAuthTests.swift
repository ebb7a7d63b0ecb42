import XCTest
import FleetCore
@testable import FleetStack

/// Sign-in, tokens, config and the generic routing answers, over HTTP.
final class AppAuthTests: XCTestCase {
    func testHealthAndConfigNeedNoToken() throws {
        let app = try AppStack()
        XCTAssertEqual(try app.call("GET", "/healthz").status, 200)
        let c = try app.call("GET", "/config")
        XCTAssertEqual(c.status, 200)
        XCTAssertEqual(c.header("content-type"), "application/json; charset=utf-8")
        XCTAssertEqual(c.json["min_app_version"]?.string, "1.0.0")
        XCTAssertEqual(c.json["poll"]?["initial_ms"]?.int, 2000)
        XCTAssertEqual(c.json["poll"]?["max_ms"]?.int, 5000)
        XCTAssertEqual(c.json["poll"]?["give_up_ms"]?.int, 120_000)
        XCTAssertEqual(c.json["limits"]?["max_recording_s"]?.int, 90)
        XCTAssertNotNil(c.json["limits"]?["max_upload_bytes"]?.int)
        XCTAssertEqual(c.json["supported_practice_languages"]?.array?.count, 2)
    }

    func testSameInstallIDIsTheSameUser() throws {
        let app = try AppStack()
        let a = try app.signIn(install: "install-1")
        let b = try app.signIn(install: "install-1")
        let c = try app.signIn(install: "install-2")
        XCTAssertFalse(a.id.isEmpty)
        XCTAssertEqual(a.id, b.id)
        XCTAssertNotEqual(a.id, c.id)
        let me = try app.call("GET", "/me", token: b.token)
        XCTAssertEqual(me.status, 200)
        XCTAssertEqual(me.json["user_id"]?.string, a.id)
    }

    func testSignInWithoutInstallIDIsInvalidRequestInTheEnvelope() throws {
        let app = try AppStack()
        let r = try app.call("POST", "/auth/anonymous", json: ["timezone": "UTC", "locale": "en"])
        XCTAssertEqual(r.status, 400)
        XCTAssertEqual(r.errorCode, "invalid_request")
        XCTAssertEqual(r.json["error"]?["retryable"]?.bool, false)
        XCTAssertTrue(r.json["error"]?["message"]?.string?.contains("install_id") ?? false, r.text)
    }

    func testMalformedJSONIsInvalidRequest() throws {
        let app = try AppStack()
        let r = try app.call("POST", "/auth/anonymous", headers: [("Content-Type", "application/json")], body: Array("{\"install_id\":".utf8))
        XCTAssertEqual(r.status, 400)
        XCTAssertEqual(r.errorCode, "invalid_request")
    }

    func testMeReflectsTheSignInLocale() throws {
        let app = try AppStack()
        let u = try app.signIn(locale: "zh-Hans-CN", timezone: "Asia/Shanghai")
        let me = try app.call("GET", "/me", token: u.token).json
        XCTAssertEqual(me["settings"]?["practice_languages"]?.array?.first?.string, "zh-Hans")
        XCTAssertEqual(me["settings"]?["ui_locale"]?.string, "zh-Hans")
        XCTAssertEqual(me["onboarding"]?["status"]?.string, "not_started")
        XCTAssertEqual(me["entitlement"]?["status"]?.string, "active")
        XCTAssertEqual(me["stats"]?["xp"]?.int, 0)
        XCTAssertEqual(me["stats"]?["level"]?.int, 1)
        XCTAssertEqual(me["stats"]?["streak"]?.int, 0)
        let home = try app.call("GET", "/home", token: u.token).json
        XCTAssertEqual(home["today_quest"]?["article_id"]?.string?.hasPrefix("zh-"), true, "quest in the primary language")
    }

    func testNewUsersHaveNoEntitlementByDefault() throws {
        let app = try AppStack { $0.newUserEntitlement = "none" }
        let u = try app.signIn()
        XCTAssertEqual(try app.call("GET", "/me", token: u.token).json["entitlement"]?["status"]?.string, "none")
    }

    func testMissingOrForgedTokenIs401() throws {
        let app = try AppStack()
        let u = try app.signIn()
        let none = try app.call("GET", "/me")
        XCTAssertEqual(none.status, 401)
        XCTAssertEqual(none.errorCode, "unauthorized")
        var forged = Array(u.token)
        forged[forged.count - 3] = forged[forged.count - 3] == "A" ? "B" : "A"
        let bad = try app.call("GET", "/me", token: String(forged))
        XCTAssertEqual(bad.status, 401)
        XCTAssertEqual(bad.errorCode, "unauthorized")
    }

    func testExpiredAccessTokenIsTokenExpiredAndRefreshRenewsIt() throws {
        let app = try AppStack { $0.accessTokenLifetimeS = 60 }
        let u = try app.signIn()
        XCTAssertEqual(try app.call("GET", "/me", token: u.token).status, 200)
        app.clock.advance(ms: 61_000)
        let expired = try app.call("GET", "/me", token: u.token)
        XCTAssertEqual(expired.status, 401)
        XCTAssertEqual(expired.errorCode, "token_expired")
        let r = try app.call("POST", "/auth/refresh", json: ["refresh_token": .string(u.refresh)])
        XCTAssertEqual(r.status, 200, r.text)
        XCTAssertEqual(r.json["user_id"]?.string, u.id)
        XCTAssertEqual(r.json["expires_in"]?.int, 60)
        let fresh = try XCTUnwrap(r.json["access_token"]?.string)
        XCTAssertEqual(try app.call("GET", "/me", token: fresh).status, 200)
    }

    func testRefreshRejectsAccessTokensAndGarbage() throws {
        let app = try AppStack()
        let u = try app.signIn()
        XCTAssertEqual(try app.call("POST", "/auth/refresh", json: ["refresh_token": .string(u.token)]).status, 401)
        XCTAssertEqual(try app.call("POST", "/auth/refresh", json: ["refresh_token": "nonsense"]).status, 401)
        XCTAssertEqual(try app.call("POST", "/auth/refresh", json: [:]).status, 400)
    }

    func testUnknownRouteIs404AndWrongMethodIs405() throws {
        let app = try AppStack()
        let u = try app.signIn()
        let missing = try app.call("GET", "/no/such/route", token: u.token)
        XCTAssertEqual(missing.status, 404)
        XCTAssertEqual(missing.errorCode, "not_found")
        let wrong = try app.call("DELETE", "/config", token: u.token)
        XCTAssertEqual(wrong.status, 405)
        XCTAssertEqual(wrong.errorCode, "method_not_allowed")
        XCTAssertNotNil(wrong.header("Allow"))
    }

    func testOldAppVersionSignsInThenGets426EverywhereButConfig() throws {
        let app = try AppStack { $0.minAppVersion = "2.1.0" }
        let old = try app.signIn(appVersion: "2.0.9")
        XCTAssertFalse(old.token.isEmpty, "an old app still authenticates")
        let me = try app.call("GET", "/me", token: old.token)
        XCTAssertEqual(me.status, 426)
        XCTAssertEqual(me.errorCode, "upgrade_required")
        XCTAssertEqual(try app.call("GET", "/home", token: old.token).status, 426)
        XCTAssertEqual(try app.call("GET", "/config", token: old.token).status, 200)
        let current = try app.signIn(appVersion: "2.1.0")
        XCTAssertEqual(try app.call("GET", "/me", token: current.token).status, 200)
    }
}
