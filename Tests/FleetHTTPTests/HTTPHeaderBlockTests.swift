import XCTest
@testable import FleetHTTP

/// Raw header blocks are split only on demand, and give the same answers as split headers.
final class HTTPHeaderBlockTests: XCTestCase {
    private let raw = Array("Content-Type:  text/plain \r\nX-Dup: one\r\nno colon here\r\nx-dup:\ttwo\t\r\nEmpty:\r\nServer: nginx\r\n\r\n".utf8)

    func testRawBlockSplitsIntoTrimmedHeadersInOrder() {
        let r = HTTPResponse(status: 200, rawHeaders: raw, body: [], timings: HTTPTimings())
        XCTAssertEqual(r.headers, [HTTPHeader("Content-Type", "text/plain"), HTTPHeader("X-Dup", "one"),
                                   HTTPHeader("x-dup", "two"), HTTPHeader("Empty", ""), HTTPHeader("Server", "nginx")])
    }

    func testLookupIsCaseInsensitiveFirstMatchAndAgreesWithParsedForm() {
        let r = HTTPResponse(status: 200, rawHeaders: raw, body: [], timings: HTTPTimings())
        let parsed = HTTPResponse(status: 200, headers: r.headers, body: [], timings: HTTPTimings())
        for name in ["content-type", "X-DUP", "x-dup", "empty", "SERVER", "missing", "no colon here", "Content-Typ"] {
            XCTAssertEqual(r.header(name), parsed.header(name), name)
        }
        XCTAssertEqual(r.header("X-DUP"), "one")
        XCTAssertEqual(r.header("empty"), "")
        XCTAssertNil(r.header("Content-Typ"))
    }

    func testSettingHeadersReplacesTheRawBlock() {
        var r = HTTPResponse(status: 200, rawHeaders: raw, body: [], timings: HTTPTimings())
        r.headers = [HTTPHeader("A", "b")]
        XCTAssertEqual(r.header("a"), "b")
        XCTAssertNil(r.header("server"))
    }
}
