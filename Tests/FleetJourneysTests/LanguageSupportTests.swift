import FleetClient
import FleetCore
import XCTest
@testable import FleetJourneys

/// The client's language codes: from `GET /config`, else the app's bundled default.
final class LanguageSupportTests: XCTestCase {
    func testConfigListsWinAndMissingOrEmptyListsFallBackToTheBundledDefault() throws {
        let listed = LanguageSupport(config: try JSONValue.parse(#"{"supported_practice_languages": ["en", "zh"], "supported_ui_locales": ["en"]}"#))
        XCTAssertEqual(listed.practiceLanguages, ["en", "zh"])
        XCTAssertEqual(listed.uiLocales, ["en"])
        XCTAssertEqual(listed.practiceLanguage(forLocale: "zh-Hans-CN"), "zh", "matched by primary subtag")
        XCTAssertEqual(listed.uiLocale(forLocale: "zh-Hans-CN"), "en", "no Chinese UI listed: the first")
        let omitted = LanguageSupport(config: try JSONValue.parse(#"{"min_app_version": "1.0.0"}"#))
        XCTAssertEqual(omitted.practiceLanguages, ["en", "zh-Hans"])
        XCTAssertEqual(omitted.uiLocales, ["en", "zh-Hans"])
        XCTAssertEqual(omitted.practiceLanguage(forLocale: "zh-Hans-SG"), "zh-Hans")
        let empty = LanguageSupport(config: try JSONValue.parse(#"{"supported_practice_languages": [], "supported_ui_locales": [3]}"#))
        XCTAssertEqual(empty, LanguageSupport())
    }

    func testPracticeToggleUsesOnlyOfferedCodes() {
        var random = SeededRandom(seed: 1)
        let j = ChangeLanguages()
        for _ in 0..<50 {
            let next = j.nextPracticeLanguages(["zh-Hans"], offered: ["en", "zh-Hans"], &random)
            XCTAssertTrue(next == ["zh-Hans", "en"] || next == ["en"], "\(String(describing: next))")
        }
        XCTAssertNil(j.nextPracticeLanguages(["en"], offered: ["en"], &random), "nothing to toggle")
        XCTAssertEqual(j.nextPracticeLanguages(["zh"], offered: ["en", "zh-Hans"], &random)?.allSatisfy { ["en", "zh-Hans"].contains($0) }, true,
                       "a code the server no longer lists is not sent back")
    }
}
