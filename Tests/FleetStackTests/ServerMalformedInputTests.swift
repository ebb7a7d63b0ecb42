import FleetCore
import FleetHTTPServer
import FleetStack
import FleetTestSupport
import XCTest

/// Malformed input gets a JSON error envelope and a closed connection, never a crash or hang.
final class ServerMalformedInputTests: XCTestCase {
    /// Sends `raw` on a fresh connection and expects `status` with `code`, then a close.
    private func expectRejection(_ raw: String, status: Int, code: String, port: Int,
                                 file: StaticString = #filePath, line: UInt = #line) throws {
        let client = try RawClient(port: port)
        try client.send(raw)
        let response = try client.readResponse()
        XCTAssertEqual(response.status, status, "for \(raw.debugDescription)", file: file, line: line)
        XCTAssertEqual(response.errorCode(file: file, line: line), code, file: file, line: line)
        XCTAssertTrue(client.closedByServer(within: 4), "connection left open", file: file, line: line)
    }

    func testGarbageIs400ThenClose() throws {
        let handler = RecordingHandler()
        let (server, port) = try startServer(handler)
        defer { server.stop() }
        try expectRejection("HELLO THERE\r\n\r\n", status: 400, code: "invalid_request", port: port)
        try expectRejection("GET /x HTTP/1.1 extra\r\nHost: t\r\n\r\n", status: 400, code: "invalid_request", port: port)
        try expectRejection("GET nopath HTTP/1.1\r\nHost: t\r\n\r\n", status: 400, code: "invalid_request", port: port)
        try expectRejection("GET /a%zz HTTP/1.1\r\nHost: t\r\n\r\n", status: 400, code: "invalid_request", port: port)
        try expectRejection("GET /a%00 HTTP/1.1\r\nHost: t\r\n\r\n", status: 400, code: "invalid_request", port: port)
        try expectRejection("GET / HTTP/1.1\r\nHost: t\r\nBad Name: x\r\n\r\n", status: 400, code: "invalid_request", port: port)
        try expectRejection("GET / HTTP/1.1\r\nHost: t\r\n folded\r\n\r\n", status: 400, code: "invalid_request", port: port)
        try expectRejection("GET / HTTP/1.1\r\n\r\n", status: 400, code: "invalid_request", port: port)
        try expectRejection("GET / HTTP/9.9\r\nHost: t\r\n\r\n", status: 505, code: "http_version_not_supported", port: port)
        try expectRejection("BREW /pot HTTP/1.1\r\nHost: t\r\n\r\n", status: 501, code: "not_implemented", port: port)
        XCTAssertEqual(handler.callCount, 0)
    }

    func testBadOrConflictingContentLengthIs400() throws {
        let handler = RecordingHandler()
        let (server, port) = try startServer(handler)
        defer { server.stop() }
        let head = "POST /echo HTTP/1.1\r\nHost: t\r\n"
        try expectRejection(head + "Content-Length: 3\r\nContent-Length: 4\r\n\r\nabcd", status: 400, code: "invalid_request", port: port)
        try expectRejection(head + "Content-Length: 3\r\nContent-Length: 3\r\n\r\nabc", status: 400, code: "invalid_request", port: port)
        try expectRejection(head + "Content-Length: -1\r\n\r\n", status: 400, code: "invalid_request", port: port)
        try expectRejection(head + "Content-Length: 3, 3\r\n\r\nabc", status: 400, code: "invalid_request", port: port)
        try expectRejection(head + "Content-Length: 99999999999999999999\r\n\r\n", status: 400, code: "invalid_request", port: port)
        try expectRejection(head + "Content-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n",
                            status: 400, code: "invalid_request", port: port)
        try expectRejection(head + "Transfer-Encoding: gzip\r\n\r\n", status: 400, code: "invalid_request", port: port)
        XCTAssertEqual(handler.callCount, 0)
    }

    func testBadChunkSizesAre400() throws {
        let handler = RecordingHandler()
        let (server, port) = try startServer(handler)
        defer { server.stop() }
        let head = "POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n"
        try expectRejection(head + "zz\r\nabc\r\n0\r\n\r\n", status: 400, code: "invalid_request", port: port)
        try expectRejection(head + "-5\r\nabc\r\n0\r\n\r\n", status: 400, code: "invalid_request", port: port)
        try expectRejection(head + "fffffffffffffffff\r\n", status: 400, code: "invalid_request", port: port)
        try expectRejection(head + "3\r\nabcdef\r\n0\r\n\r\n", status: 400, code: "invalid_request", port: port)
        XCTAssertEqual(handler.callCount, 0)
    }

    func testHugeHeaderIs431() throws {
        var limits = ServerLimits()
        limits.maxHeaderBytes = 4096
        let handler = RecordingHandler()
        let (server, port) = try startServer(handler, limits: limits)
        defer { server.stop() }
        // Complete but too large, and never-ending: both are refused.
        let big = String(repeating: "a", count: 5000)
        try expectRejection("GET / HTTP/1.1\r\nHost: t\r\nX-Big: \(big)\r\n\r\n",
                            status: 431, code: "header_too_large", port: port)
        try expectRejection("GET / HTTP/1.1\r\nHost: t\r\nX-Big: \(big)", status: 431, code: "header_too_large", port: port)
        XCTAssertEqual(handler.callCount, 0)
    }

    func testErrorAfterPipelinedGoodRequestKeepsOrder() throws {
        let (server, port) = try startServer(RecordingHandler())
        defer { server.stop() }
        let client = try RawClient(port: port)
        try client.send("GET /slow?ms=100&n=good HTTP/1.1\r\nHost: t\r\n\r\nNONSENSE\r\n\r\n")
        XCTAssertEqual(try client.readResponse().header("x-tag"), "good")
        XCTAssertEqual(try client.readResponse().status, 400)
        XCTAssertTrue(client.closedByServer(within: 4))
    }

    /// Random bytes on 150 connections: each gets an answer or a close, and the server survives.
    func testRandomInputNeverBreaksTheServer() throws {
        var limits = ServerLimits()
        limits.headerTimeout = 0.5
        let (server, port) = try startServer(RecordingHandler(), limits: limits)
        defer { server.stop() }
        var random = SeededRandom(seed: 42)
        let alphabet = Array("GET POST / HTTP/1.1\r\n:Host;Content-Length: 0123456789abcdefTransfer-Encoding chunked%\u{0}\u{7f}é".utf8)
        for _ in 0..<150 {
            let client = try RawClient(port: port)
            let length = Int(random.next() % 300) + 1
            var bytes = (0..<length).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] }
            if random.chance(0.5) { bytes = Array("POST /echo HTTP/1.1\r\nHost: t\r\n".utf8) + bytes }
            try client.send(bytes + Array("\r\n\r\n".utf8))
            client.close()
        }
        XCTAssertTrue(eventually(within: 5) { server.openConnectionCount == 0 })
        let client = try RawClient(port: port)
        try client.send("GET /echo?n=alive HTTP/1.1\r\nHost: t\r\n\r\n")
        XCTAssertEqual(try client.readResponse().header("x-tag"), "alive")
    }
}
