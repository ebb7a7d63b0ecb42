import FleetCore
import XCTest

/// The one locale → language rule the app model and the stack share.
final class LanguageClosestTests: XCTestCase {
    func testClosestIsTheMatchElseTheServersFirstCode() {
        XCTAssertEqual(LanguageTag.closest(to: "zh-Hans-CN", in: ["en", "zh-Hans"]), "zh-Hans")
        XCTAssertEqual(LanguageTag.closest(to: "zh-Hans-SG", in: ["en", "zh"]), "zh")
        XCTAssertEqual(LanguageTag.closest(to: "en-GB", in: ["zh-Hans", "en"]), "en")
        XCTAssertEqual(LanguageTag.closest(to: "fr-FR", in: ["zh-Hans", "en"]), "zh-Hans", "no match: the first code")
        XCTAssertEqual(LanguageTag.closest(to: "", in: ["en", "zh"]), "en", "an empty locale names no language")
    }
}
