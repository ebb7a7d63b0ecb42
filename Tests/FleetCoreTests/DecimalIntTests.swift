import FleetCore
import XCTest

/// `DecimalInt.parse` reads bytes as `Int(_:)` reads the same String.
final class DecimalIntTests: XCTestCase {
    func testReadsAsIntReadsTheString() {
        let cases = ["0", "7", "05", "+5", "-5", "+", "-", "", "+-5", "5-", "1.0", "x", "é", " 5", "5 ", "00000000000000000042",
                     "9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809"]
        for c in cases {
            var s = c
            XCTAssertEqual(s.withUTF8 { DecimalInt.parse($0) }, Int(c), c.debugDescription)
        }
    }
}
