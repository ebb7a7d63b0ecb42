import XCTest
@testable import FleetClient

/// `Exchange.pathID`: the concrete path's segment where the template has its first `{id}`.
final class ExchangePathIDTests: XCTestCase {
    private func id(_ template: String, _ path: String) -> String? {
        Exchange(template: template, path: path, status: 200, body: nil, intended: 0, sent: 0, received: 0).pathID
    }

    func testTheSegmentUnderTheFirstPlaceholder() {
        XCTAssertEqual(id("GET /attempts/{id}", "/attempts/a_1"), "a_1")
        XCTAssertEqual(id("POST /sessions/{id}/complete", "/sessions/s-12/complete"), "s-12")
        XCTAssertEqual(id("GET /attempts/{id}/exemplar", "/attempts/x/exemplar"), "x")
        XCTAssertEqual(id("POST /a/{id}/b/{id}", "/a/first/b/second"), "first", "the first placeholder wins")
        XCTAssertEqual(id("GET /sessions/{id}", "//sessions//s9/"), "s9", "empty segments are skipped, as split does")
        XCTAssertEqual(id("/sessions/{id}", "/sessions/é1"), "é1", "a template without a method, a non-ASCII id")
    }

    func testEachRouteKnowsWhereItsTemplatePutsTheID() {
        for r in Route.allCases {
            let derived = Exchange.idSegment(ofTemplate: r.rawValue)
            XCTAssertEqual(r.idSegment?.at, derived?.at, "\(r)")
            XCTAssertEqual(r.idSegment?.of, derived?.of, "\(r)")
        }
        XCTAssertEqual(Route.completeSession.idSegment?.at, 1)
        XCTAssertEqual(Route.completeSession.idSegment?.of, 3)
        XCTAssertNil(Route.getHome.idSegment)
        // An exchange under an unlisted template still walks it.
        XCTAssertEqual(id("GET /x/y/{id}", "/x/y/z"), "z")
    }

    func testNoIDWhenTheShapesDifferOrTheTemplateHasNone() {
        XCTAssertNil(id("GET /attempts/{id}", "/attempts/a_1/audio"), "more segments than the template")
        XCTAssertNil(id("GET /attempts/{id}/audio", "/attempts/a_1"), "fewer segments than the template")
        XCTAssertNil(id("GET /home", "/home"))
        XCTAssertNil(id("PUT upload", "/uploads/u1"))
        XCTAssertNil(id("GET /attempts/{idx}", "/attempts/a"), "only the exact placeholder counts")
    }
}

/// `APIClient.uploadSent`: an upload is traced under its URL's path, without scheme, host or query.
final class UploadSentPathTests: XCTestCase {
    func testThePathAfterTheHostWithoutTheQuery() {
        let path = { (url: String) in APIClient.uploadSent(url).path }
        XCTAssertEqual(path("http://127.0.0.1:8080/uploads/u_1?sig=abc&exp=2"), "/uploads/u_1")
        XCTAssertEqual(path("https://bucket.example/a/b/c"), "/a/b/c")
        XCTAssertEqual(path("http://127.0.0.1:8080"), "/", "no path is the root")
        XCTAssertEqual(path("http://h/é/ü?q"), "/é/ü")
        XCTAssertEqual(path("/relative/upload"), "/relative/upload", "no scheme: the URL as given")
        XCTAssertEqual(path("x:/"), "x:/")
        XCTAssertEqual(path(""), "")
    }
}
