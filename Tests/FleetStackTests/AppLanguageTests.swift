import XCTest
import Foundation
import FleetCore
@testable import FleetStack

/// The stack's language codes: what `GET /config` lists, what it accepts, how articles are tagged.
final class AppLanguageTests: XCTestCase {
    private func onboard(_ app: AppStack, _ u: AppTestUser, language: String) throws -> AppTestResponse {
        try app.call("POST", "/onboarding", json: [
            "practice_language": .string(language), "goal": "work", "scenario": "small_talk", "topics": ["daily-life"],
            "self_level": "intermediate", "commitment_minutes": 10, "reminder_time": "08:30"], token: u.token)
    }

    /// By default the stack speaks the app's own codes (seeds/001: `[en, zh-Hans]`).
    func testDefaultCodesAreTheAppsOwn() throws {
        let app = try AppStack()
        let config = try app.call("GET", "/config").json
        XCTAssertEqual(config["supported_practice_languages"], ["en", "zh-Hans"])
        XCTAssertEqual(config["supported_ui_locales"], ["en", "zh-Hans"])
        let u = try app.signIn(locale: "zh-Hans-CN")
        XCTAssertEqual(try app.call("GET", "/me", token: u.token).json["settings"]?["practice_languages"], ["zh-Hans"])
        let refused = try onboard(app, u, language: "zh")
        XCTAssertEqual(refused.status, 400, "zh is not a code this stack lists")
        XCTAssertTrue(refused.text.contains("zh-Hans"), refused.text)
        let ok = try onboard(app, u, language: "zh-Hans")
        XCTAssertEqual(ok.status, 200, ok.text)
        XCTAssertEqual(ok.json["diagnostic_session"]?["language"]?.string, "zh-Hans")
        XCTAssertEqual(ok.json["article"]?["language"]?.string, "zh-Hans", "articles carry the stack's code")
    }

    /// A stack configured with `zh` lists it, tags the same articles with it and refuses `zh-Hans`.
    func testConfiguredCodesAreListedAcceptedAndTagArticles() throws {
        let app = try AppStack { $0.practiceLanguages = ["en", "zh"] }
        XCTAssertEqual(try app.call("GET", "/config").json["supported_practice_languages"], ["en", "zh"])
        let u = try app.signIn(locale: "zh-Hans-CN")
        XCTAssertEqual(try app.call("GET", "/me", token: u.token).json["settings"]?["practice_languages"], ["zh"])
        XCTAssertEqual(try onboard(app, u, language: "zh-Hans").status, 400)
        let items = try app.call("GET", "/articles?language=zh", token: u.token).json["items"]?.array ?? []
        XCTAssertFalse(items.isEmpty)
        XCTAssertTrue(items.allSatisfy { $0["language"]?.string == "zh" })
        XCTAssertEqual(try app.call("GET", "/articles?language=zh-Hans", token: u.token).status, 400)
    }

    /// `configListsLanguages: false` plays a server whose config lacks the lists; it still accepts its codes.
    func testConfigMayOmitTheLists() throws {
        let app = try AppStack { $0.configListsLanguages = false }
        let config = try app.call("GET", "/config").json
        XCTAssertNotNil(config["min_app_version"])
        XCTAssertNil(config["supported_practice_languages"])
        XCTAssertNil(config["supported_ui_locales"])
        let u = try app.signIn(locale: "zh-Hans-CN")
        XCTAssertEqual(try onboard(app, u, language: "zh-Hans").status, 200)
    }

    func testBadLanguageListsAreRefusedNamingTheField() {
        for (bad, field) in [(["zh", "zh-Hans"], "practiceLanguages"), ([], "practiceLanguages"), (["zh Hans"], "practiceLanguages")] {
            var s = StackSettings()
            s.practiceLanguages = bad
            XCTAssertThrowsError(try s.validate(), "\(bad)") { XCTAssertTrue("\($0)".contains(field), "\($0)") }
        }
        var s = StackSettings()
        s.uiLocales = ["en", "en"]
        XCTAssertThrowsError(try s.validate()) { XCTAssertTrue("\($0)".contains("uiLocales"), "\($0)") }
        XCTAssertNoThrow(try JSONDecoder().decode(StackSettings.self, from: Data(#"{"practiceLanguages": ["en", "zh"], "configListsLanguages": false}"#.utf8)))
    }
}
