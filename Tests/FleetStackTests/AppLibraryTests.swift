import XCTest
import FleetCore
@testable import FleetStack

/// The library's filters and cursors, and growth, over HTTP.
final class AppLibraryTests: XCTestCase {
    private func page(_ app: AppStack, _ u: AppTestUser, _ query: String) throws -> AppTestResponse {
        try app.call("GET", "/articles" + (query.isEmpty ? "" : "?" + query), token: u.token)
    }

    func testCursorWalksEveryArticleOnce() throws {
        let app = try AppStack()
        let u = try app.signIn()
        var ids: [String] = []
        var cursor: String? = nil
        for _ in 0..<20 {
            let r = try page(app, u, cursor.map { "cursor=\($0)" } ?? "")
            XCTAssertEqual(r.status, 200, r.text)
            let items = r.json["items"]?.array ?? []
            XCTAssertLessThanOrEqual(items.count, 10)
            ids += items.compactMap { $0["id"]?.string }
            cursor = r.json["next_cursor"]?.string
            if cursor == nil { break }
        }
        let catalog = try Catalog.loadBundled()
        XCTAssertEqual(ids, catalog.articles.map(\.id))
    }

    func testFilters() throws {
        let app = try AppStack()
        let u = try app.signIn()
        let zh = try page(app, u, "language=zh-Hans").json["items"]?.array ?? []
        XCTAssertFalse(zh.isEmpty)
        XCTAssertTrue(zh.allSatisfy { $0["language"]?.string == "zh-Hans" })
        let travel = try page(app, u, "topic=travel&language=en").json["items"]?.array ?? []
        XCTAssertFalse(travel.isEmpty)
        XCTAssertTrue(travel.allSatisfy { $0["topic"]?.string == "travel" && $0["language"]?.string == "en" })
        let locked = try page(app, u, "status=locked").json["items"]?.array ?? []
        XCTAssertFalse(locked.isEmpty)
        XCTAssertTrue(locked.allSatisfy { $0["locked"]?.bool == true && !($0["unlock_hint"]?.string ?? "").isEmpty })
        XCTAssertEqual(try page(app, u, "status=completed").json["items"]?.array?.count, 0)
        XCTAssertEqual(try page(app, u, "status=sideways").errorCode, "invalid_request")
        XCTAssertEqual(try page(app, u, "language=fr").errorCode, "invalid_request")
        XCTAssertEqual(try page(app, u, "topic=astrology").errorCode, "invalid_request")
        let first = try page(app, u, "language=en")
        let cursor = try XCTUnwrap(first.json["next_cursor"]?.string)
        XCTAssertEqual(try page(app, u, "language=zh&cursor=\(cursor)").errorCode, "invalid_request", "a cursor belongs to its filters")
        XCTAssertEqual(try page(app, u, "cursor=garbage").errorCode, "invalid_request")
    }

    func testStatusFiltersFollowProgressAndGrowthCounts() throws {
        let app = try AppStack()
        let u = try app.signIn()
        let s = try app.sessionReadyToComplete(u, article: "en-daily-003")
        XCTAssertEqual(try page(app, u, "status=in_progress").json["items"]?.array?.compactMap { $0["id"]?.string }, ["en-daily-003"])
        let settlement = try app.call("POST", "/sessions/\(s)/complete", token: u.token, key: s)
        XCTAssertEqual(settlement.status, 200)
        let done = try page(app, u, "status=completed").json["items"]?.array ?? []
        XCTAssertEqual(done.compactMap { $0["id"]?.string }, ["en-daily-003"])
        XCTAssertNotNil(done.first?["best_overall"]?.int)
        XCTAssertFalse((try page(app, u, "status=new").json["items"]?.array ?? []).contains { $0["id"]?.string == "en-daily-003" })
        XCTAssertFalse((try page(app, u, "status=not_completed&language=en").json["items"]?.array ?? [])
            .contains { $0["id"]?.string == "en-daily-003" })
        let growth = try app.call("GET", "/growth", token: u.token).json
        let weeks = try XCTUnwrap(growth["weeks"]?.array)
        XCTAssertEqual(weeks.count, 1)
        XCTAssertEqual(weeks[0]["sessions"]?.int, 1)
        XCTAssertEqual(weeks[0]["best_overall"], done.first?["best_overall"])
        let monday = try XCTUnwrap(weeks[0]["week_start"]?.string)
        let mondayMs = try XCTUnwrap(RFC3339.parseMillis(monday + "T12:00:00Z"))
        XCTAssertEqual((DayNumber.utc(atMs: mondayMs) + 3) % 7, 0, "\(monday) is a Monday")
        XCTAssertEqual(growth["recent"]?.array?.first?["session_id"]?.string, s)
    }
}
