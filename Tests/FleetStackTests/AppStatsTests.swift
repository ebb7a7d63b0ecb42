import XCTest
import FleetCore
@testable import FleetStack

/// `GET /_stack/stats`: the reference stack's own row counts (what `fleet capacity` reports as
/// the database size it reached).
final class AppStatsTests: XCTestCase {
    func testStatsCountTheRowsTheAPICreated() throws {
        let app = try AppStack()
        let empty = try app.call("GET", "/_stack/stats")
        XCTAssertEqual(empty.status, 200, empty.text)
        XCTAssertEqual(empty.json["users"]?.int, 0)
        XCTAssertEqual(empty.json["sessions"]?.int, 0)
        let a = try app.signIn()
        _ = try app.signIn()
        _ = try app.startSession(a)
        let after = try app.call("GET", "/_stack/stats").json
        XCTAssertEqual(after["users"]?.int, 2)
        XCTAssertEqual(after["sessions"]?.int, 1)
        XCTAssertEqual(after["settlements"]?.int, 0)
    }
}
