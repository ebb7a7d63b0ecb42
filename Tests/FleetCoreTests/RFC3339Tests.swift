import XCTest
@testable import FleetCore

final class RFC3339Tests: XCTestCase {
    func testFormatsAndParsesKnownInstants() {
        XCTAssertEqual(RFC3339.format(millis: 0), "1970-01-01T00:00:00.000Z")
        XCTAssertEqual(RFC3339.format(millis: 1_795_964_928_123), "2026-11-29T15:08:48.123Z")
        XCTAssertEqual(RFC3339.parseMillis("2026-11-29T15:08:48.123Z"), 1_795_964_928_123)
        XCTAssertEqual(RFC3339.parseMillis("2026-11-29T16:08:48.1+01:00"), 1_795_964_928_100)
        XCTAssertEqual(RFC3339.parseMillis("1969-12-31T23:59:59.999Z"), -1)
        XCTAssertNil(RFC3339.parseMillis("2026-13-01T00:00:00Z"))
        XCTAssertNil(RFC3339.parseMillis("yesterday"))
        // A server may send microseconds or nanoseconds; they are cut to milliseconds, never a crash.
        XCTAssertEqual(RFC3339.parseMillis("2026-11-29T15:08:48.123456Z"), 1_795_964_928_123)
        XCTAssertEqual(RFC3339.parseMillis("2026-11-29T15:08:48.123456789+00:00"), 1_795_964_928_123)
        XCTAssertNil(RFC3339.parseMillis("2026-11-29T15:08:48.Z"))
        XCTAssertNil(RFC3339.parseMillis("2026-11-29T15:08:48.5+01"))
        for ms in stride(from: Int64(-5_000_000_000_000), to: 5_000_000_000_000, by: 123_456_789_013) {
            XCTAssertEqual(RFC3339.parseMillis(RFC3339.format(millis: ms)), ms)
        }
    }
}
