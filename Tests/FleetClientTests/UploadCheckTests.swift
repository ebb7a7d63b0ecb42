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

    func testEveryByteOfALongURLIsChecked() {
        // Bytes are judged eight at a time: a bad byte at any offset of a word, or of the tail,
        // is found, and the range's edges (0x21, 0x7E) pass wherever they sit.
        let head = Array("http://h/".utf8), length = 41
        for p in head.count..<length {
            for bad: UInt8 in [0x00, 0x09, 0x1f, 0x20, 0x7f, 0x80, 0xc3, 0xff] {
                var u = head + [UInt8](repeating: 0x61, count: length - head.count)
                u[p] = bad
                XCTAssertFalse(u.withUnsafeBufferPointer(UploadCheck.allVisibleASCII), "0x\(String(bad, radix: 16)) at \(p)")
            }
            for edge: UInt8 in [0x21, 0x7e] {
                var u = head + [UInt8](repeating: 0x61, count: length - head.count)
                u[p] = edge
                XCTAssertTrue(u.withUnsafeBufferPointer(UploadCheck.allVisibleASCII), "0x\(String(edge, radix: 16)) at \(p)")
            }
        }
    }
}
