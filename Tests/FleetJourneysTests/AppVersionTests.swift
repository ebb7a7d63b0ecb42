import XCTest
@testable import FleetJourneys

/// Dotted app versions compare part by part, numerically, missing parts as zero.
final class AppVersionTests: XCTestCase {
    func testNumericPartsCompareAsNumbersAndMissingPartsAsZero() {
        XCTAssertTrue(AppVersion.less("1.9.3", than: "1.10.0"))
        XCTAssertFalse(AppVersion.less("1.10.0", than: "1.9.3"))
        XCTAssertFalse(AppVersion.less("1.4", than: "1.4.0"))
        XCTAssertFalse(AppVersion.less("1.4.0", than: "1.4"))
        XCTAssertTrue(AppVersion.less("1.4", than: "1.4.1"))
        XCTAssertTrue(AppVersion.less("", than: "0.0.1"))
        XCTAssertFalse(AppVersion.less("2", than: "2"))
    }

    /// Odd versions read as the split-and-`Int` reading did: empty parts skipped, a sign
    /// allowed, anything else (letters, a lone sign, an overflow) zero.
    func testOddPartsReadAsSplitAndIntReadThem() {
        func reference(_ a: String, _ b: String) -> Bool {
            let x = a.split(separator: ".").map { Int($0) ?? 0 }, y = b.split(separator: ".").map { Int($0) ?? 0 }
            for i in 0..<max(x.count, y.count) {
                let p = i < x.count ? x[i] : 0, q = i < y.count ? y[i] : 0
                if p != q { return p < q }
            }
            return false
        }
        let versions = ["1.2", "1..2", ".1", "1.", "-1", "+1", "-", "1.x", "1.2x", "99999999999999999999.1",
                        "9223372036854775807", "-9223372036854775808", "0.-3", "1.0.0.0.1", "é.1", "..", "1.2.3"]
        for a in versions {
            for b in versions {
                XCTAssertEqual(AppVersion.less(a, than: b), reference(a, b), "\(a) < \(b)")
            }
        }
    }
}
