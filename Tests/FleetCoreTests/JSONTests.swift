import XCTest
@testable import FleetCore

final class JSONTests: XCTestCase {
    func testParsesNestedDocumentAndReadsFields() throws {
        let v = try JSONValue.parse(#"{"a": [1, 2.5, -3e2], "b": {"c": "x\"y\u00e9\ud83d\ude00"}, "d": null, "e": true}"#)
        XCTAssertEqual(v["a"]?[0]?.int, 1)
        XCTAssertEqual(v["a"]?[1]?.double, 2.5)
        XCTAssertEqual(v["a"]?[2]?.double, -300)
        XCTAssertEqual(v["b"]?["c"]?.string, "x\"yé😀")
        XCTAssertEqual(v["d"]?.isNull, true)
        XCTAssertEqual(v["e"]?.bool, true)
        XCTAssertNil(v["missing"])
    }

    func testSerialisationIsSortedAndRoundTrips() throws {
        let v: JSONValue = ["z": 1, "a": ["s": "line\nbreak", "n": nil], "m": [true, 1.5]]
        XCTAssertEqual(v.serialized(), #"{"a":{"n":null,"s":"line\nbreak"},"m":[true,1.5],"z":1}"#)
        XCTAssertEqual(try JSONValue.parse(v.serialized()), v)
    }

    func testRejectsMalformedInputWithOffset() {
        for bad in ["{", "[1,]", "{\"a\" 1}", "01x", "\"abc", "tru", "{\"a\":1} x", "[\"\u{01}\"]"] {
            XCTAssertThrowsError(try JSONValue.parse(bad), bad)
        }
        let deep = String(repeating: "[", count: 1000) + String(repeating: "]", count: 1000)
        XCTAssertThrowsError(try JSONValue.parse(deep)) { e in
            XCTAssertTrue("\(e)".contains("nesting"), "\(e)")
        }
    }
}
