import XCTest
@testable import FleetCore

final class LanguageTagTests: XCTestCase {
    func testPrimarySubtagDecidesTheLanguage() {
        XCTAssertEqual(LanguageTag.primary("zh-Hans-CN"), "zh")
        XCTAssertEqual(LanguageTag.primary("EN_us"), "en")
        XCTAssertTrue(LanguageTag.sameLanguage("zh", "zh-Hans"))
        XCTAssertFalse(LanguageTag.sameLanguage("zh", "en"))
        XCTAssertFalse(LanguageTag.sameLanguage("", ""), "an empty tag names no language")
    }

    func testMatchPrefersTheExactCodeThenThePrimarySubtag() {
        XCTAssertEqual(LanguageTag.match("zh-Hans-CN", in: ["en", "zh-Hans"]), "zh-Hans")
        XCTAssertEqual(LanguageTag.match("zh-Hans-CN", in: ["en", "zh"]), "zh")
        XCTAssertEqual(LanguageTag.match("zh-hant", in: ["zh-Hans", "zh-Hant"]), "zh-Hant")
        XCTAssertEqual(LanguageTag.match("en-GB", in: ["EN", "zh"]), "EN")
        XCTAssertNil(LanguageTag.match("fr-FR", in: ["en", "zh-Hans"]))
    }
}
