import FleetCore
import FleetTestSupport
import XCTest
@testable import FleetHTTP

/// The answers of a hostile server (issue 16), each as the error kind the bench counts, or as a
/// plain response when the answer is legal HTTP however unusual.
final class HTTPEngineHostileTests: XCTestCase {
    private func kind(_ reply: RawHTTPServer.Reply, file: StaticString = #filePath, line: UInt = #line) throws -> HTTPErrorKind? {
        let server = try RawHTTPServer { _ in reply }
        defer { server.stop() }
        let engine = try HTTPEngine()
        defer { engine.shutdown() }
        return expectError(roundTrip(engine, HTTPRequest(method: "GET", url: server.baseURL + "/x", timeout: 3)),
                           file: file, line: line)?.kind
    }

    func testNoStatusLineIsProtocolError() throws {
        XCTAssertEqual(try kind(.rawThenClose(Array("SSH-2.0-OpenSSH_9.2p1 Debian-2\r\n".utf8))), .protocolError)
        XCTAssertEqual(try kind(.rawThenClose(Array("220 mail.example.com ESMTP Postfix\r\n".utf8))), .protocolError)
        // A TLS alert record: handshake failure.
        XCTAssertEqual(try kind(.rawThenClose([0x15, 0x03, 0x01, 0x00, 0x02, 0x02, 0x28])), .protocolError)
    }

    func testConflictingContentLengthsAreProtocolError() throws {
        let reply = Array("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 7\r\n\r\n{}".utf8)
        XCTAssertEqual(try kind(.rawThenClose(reply)), .protocolError)
    }

    func testLyingContentEncodingIsProtocolError() throws {
        let reply = Array("HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: 11\r\n\r\n{\"ok\":true}".utf8)
        XCTAssertEqual(try kind(.rawThenClose(reply)), .protocolError)
    }

    func testResetMidAnswerIsReset() throws {
        let reply = Array("HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n{\"half\":".utf8)
        XCTAssertEqual(try kind(.rawThenReset(reply)), .reset)
    }

    func testShortBodyThenCloseIsTruncated() throws {
        let reply = Array("HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n{\"half\":".utf8)
        XCTAssertEqual(try kind(.rawThenClose(reply)), .truncated)
    }

    func testLegalOddAnswersAreResponses() throws {
        let server = try RawHTTPServer { req in
            switch req.path {
            case "/http10": return .rawThenClose(Array("HTTP/1.0 200 OK\r\nContent-Type: application/json\r\n\r\n{\"a\":1}".utf8))
            case "/continue":
                return .raw(Array("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nX-Final: yes\r\nContent-Length: 2\r\n\r\n{}".utf8))
            case "/gzip":
                // "{}" gzip-compressed: an honest Content-Encoding is decoded.
                let gz: [UInt8] = [0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0xab, 0xae, 0x05, 0x00,
                                   0x43, 0xbf, 0xa6, 0xa3, 0x02, 0x00, 0x00, 0x00]
                return .http(200, headers: [("Content-Encoding", "gzip")], body: gz)
            default: return .http(302, headers: [("Location", req.path)])
            }
        }
        defer { server.stop() }
        let engine = try HTTPEngine()
        defer { engine.shutdown() }
        let old = expectResponse(roundTrip(engine, HTTPRequest(method: "GET", url: server.baseURL + "/http10", timeout: 3)))
        XCTAssertEqual(old.map { String(decoding: $0.body, as: UTF8.self) }, "{\"a\":1}")
        let cont = expectResponse(roundTrip(engine, HTTPRequest(method: "GET", url: server.baseURL + "/continue", timeout: 3)))
        XCTAssertEqual(cont?.status, 200)
        XCTAssertEqual(cont?.header("X-Final"), "yes")
        let gz = expectResponse(roundTrip(engine, HTTPRequest(method: "GET", url: server.baseURL + "/gzip", timeout: 3)))
        XCTAssertEqual(gz?.body, Array("{}".utf8))
        // A redirect is not followed: the 302 itself comes back (the client calls it unexpected).
        let loop = expectResponse(roundTrip(engine, HTTPRequest(method: "GET", url: server.baseURL + "/loop", timeout: 3)))
        XCTAssertEqual(loop?.status, 302)
        XCTAssertEqual(server.requests.filter { $0.path == "/loop" }.count, 1)
    }
}
