import XCTest
@testable import FleetCore

final class LocalTimeZoneTests: XCTestCase {
    /// The fast path (no trim when the name starts and ends with visible ASCII) and the trimming
    /// path must name the same zone: whitespace around a name or an offset is dropped, Unicode
    /// space separators included, and what is left decides the zone.
    func testWhitespaceAroundANameOrAnOffsetIsTrimmedAndTheRestDecides() {
        XCTAssertEqual(LocalTimeZone("Asia/Tokyo").identifier, "Asia/Tokyo")
        XCTAssertEqual(LocalTimeZone("  Asia/Tokyo\t").identifier, "Asia/Tokyo")
        XCTAssertEqual(LocalTimeZone("\u{00A0}Asia/Tokyo\u{2003}").identifier, "Asia/Tokyo")
        XCTAssertEqual(LocalTimeZone(" +05:45 ").identifier, "+05:45")
        XCTAssertEqual(LocalTimeZone(" +05:45 ").offsetSeconds(atMs: 0), 20_700)
        XCTAssertEqual(LocalTimeZone("Asia/Tokyo").offsetSeconds(atMs: 0), 9 * 3600)
        XCTAssertEqual(LocalTimeZone(" Asia/Tokyo ").offsetSeconds(atMs: 0), 9 * 3600)
        // Nothing left, or a name no zone has: UTC.
        XCTAssertEqual(LocalTimeZone("   ").identifier, "UTC")
        XCTAssertEqual(LocalTimeZone("").identifier, "UTC")
        XCTAssertEqual(LocalTimeZone("Mars/Olympus").identifier, "UTC")
        // A name that only looks trimmed at one end still goes through the trim.
        XCTAssertEqual(LocalTimeZone("Asia/Tokyo ").identifier, "Asia/Tokyo")
        XCTAssertEqual(LocalTimeZone("\nAsia/Tokyo").identifier, "UTC", "a newline is not in CharacterSet.whitespaces")
    }

    func testLocalDayFollowsTheOffset() {
        // 2026-12-05T20:00:00Z is already 2026-12-06 in Tokyo (+09:00).
        let ms: Int64 = 1_796_500_800_000
        XCTAssertEqual(LocalTimeZone("UTC").localDay(atMs: ms) + 1, LocalTimeZone("Asia/Tokyo").localDay(atMs: ms))
        XCTAssertEqual(LocalTimeZone("-05:00").localDay(atMs: ms), LocalTimeZone("UTC").localDay(atMs: ms))
    }

    /// Offsets read as the array-and-`Int` reading did, odd ones included.
    func testOffsetsReadAsIntReadsTheirParts() {
        func reference(_ s: String) -> Int? {
            let b = Array(s.utf8)
            guard b.count == 6, b[0] == 43 || b[0] == 45, b[3] == 58,
                  let h = Int(String(decoding: b[1..<3], as: UTF8.self)),
                  let m = Int(String(decoding: b[4..<6], as: UTF8.self)), h <= 14, m < 60 else { return nil }
            return (h * 3600 + m * 60) * (b[0] == 45 ? -1 : 1)
        }
        let cases = ["+05:45", "-05:00", "+14:00", "+15:00", "+05:60", "+05:59", "-00:30", "+-5:00", "++5:00", "+5:00",
                     "+05:-3", "+05:+3", "+0a:00", "+05:3x", "05:00+", "+05:300", "", "+05-00", "+ 5:00", "+05: 3"]
        for c in cases { XCTAssertEqual(LocalTimeZone.parseOffset(c), reference(c), c) }
        XCTAssertEqual(LocalTimeZone.parseOffset("+05:45"), 20_700)
    }
}
