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
        let expected: [Route: (at: Int, of: Int)] = [
            .getSession: (1, 2), .deleteSession: (1, 2), .getAttempt: (1, 2),
            .readingComplete: (1, 3), .createAttempt: (1, 3), .completeSession: (1, 3), .abandonSession: (1, 3),
            .submitAttempt: (1, 3), .retryAttempt: (1, 3), .getExemplar: (1, 3), .getAttemptAudio: (1, 3),
            .postFeedback: (1, 3),
        ]
        for r in Route.allCases {
            XCTAssertEqual(r.idSegment?.at, expected[r]?.at, "\(r)")
            XCTAssertEqual(r.idSegment?.of, expected[r]?.of, "\(r)")
            XCTAssertEqual(r.idSegment != nil, r.rawValue.contains("{id}"), "\(r)")
        }
        for (i, r) in Route.allCases.enumerated() { XCTAssertEqual(r.ordinal, i, "\(r)") }
        // An exchange under a listed route and one under an unlisted template read the same way.
        XCTAssertEqual(Exchange(route: .submitAttempt, path: "/attempts/a7/submit", status: 200, body: nil,
                                intended: 0, sent: 0, received: 0).pathID, "a7")
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
