import FleetCore
import XCTest

/// `Concat.join` gives what `+` gives, for every kind of part.
final class ConcatTests: XCTestCase {
    func testJoinsAsPlusDoes() {
        let parts = ["", "a", "/attempts/", "0b5e4c1e-9f3a-4d8e-b2c1-7a6f5e4d3c2b", "/submit", "é", "zh-Hans-CN 你好",
                     String(repeating: "x", count: 15), String(repeating: "y", count: 16), "e\u{301}"]
        for a in parts {
            for b in parts {
                XCTAssertEqual(Concat.join(a, b), a + b)
                for c in parts.prefix(5) {
                    let joined = Concat.join(a, b, c, b)
                    XCTAssertEqual(joined, a + b + c + b)
                    XCTAssertEqual(Array(joined.utf8), Array((a + b + c + b).utf8))
                    XCTAssertEqual(joined.count, (a + b + c + b).count, "characters of \((a, b, c))")
                }
            }
        }
    }

    /// A part that is a slice of a longer string, and one whose text is not stored contiguously.
    func testPartsOfEveryStorage() {
        let long = "https://127.0.0.1:8080/v1/sessions/abc"
        let slice = String(long.dropFirst(8).prefix(14))
        XCTAssertEqual(Concat.join(slice, "/x"), "127.0.0.1:8080/x")
        XCTAssertEqual(Concat.join("Bearer ", long), "Bearer " + long)
    }
}
