import XCTest
@testable import FleetClient

/// Server-given upload URLs: only absolute http(s) URLs with a host, of visible ASCII, are used.
final class UploadCheckTests: XCTestCase {
    func testAcceptsAbsoluteHTTPURLsWithAHost() {
        for url in ["http://127.0.0.1:8080/uploads/a_1?sig=abc&exp=1", "https://h/u", "http://h", "http://user:pw@h:1/x",
                    "http://a@b@host/x", "http://[::1]:8080/u", "https://h?x=1", "https://h#frag"] {
            XCTAssertTrue(UploadCheck.isUsableURL(url), url)
        }
    }

    func testRefusesOtherSchemesNoHostAndBytesThatCouldSplitARequest() {
        let long = "http://h/" + String(repeating: "a", count: 8192)
        for url in ["ftp://h/u", "file:///etc/passwd", "/relative", "HTTP://h/u", "http://", "http:///path", "http://:80/u",
                    "http://user@/u", "http://u@:1/x", "http://h/a b", "http://h/a\r\nX: 1", "http://h/\u{7f}", "http://hé/u", long, ""] {
            XCTAssertFalse(UploadCheck.isUsableURL(url), url.debugDescription)
        }
    }
}
