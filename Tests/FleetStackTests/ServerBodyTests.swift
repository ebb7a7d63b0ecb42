import FleetHTTPServer
import FleetStack
import FleetTestSupport
import XCTest

/// Request bodies: Content-Length, chunked, limits (413), Expect: 100-continue and clients that
/// vanish mid-upload.
final class ServerBodyTests: XCTestCase {
    func testContentLengthBodyArrivesWhole() throws {
        let handler = RecordingHandler()
        let (server, port) = try startServer(handler)
        defer { server.stop() }
        let client = try RawClient(port: port)
        let body = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        try client.send("PUT /echo HTTP/1.1\r\nHost: t\r\nContent-Length: \(body.count)\r\n\r\n")
        try client.send(body)
        let response = try client.readResponse()
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.body, body)
        XCTAssertEqual(handler.requests.first?.body.count, body.count)
    }

    func testChunkedBodyWithExtensionsAndTrailers() throws {
        let handler = RecordingHandler()
        let (server, port) = try startServer(handler)
        defer { server.stop() }
        let client = try RawClient(port: port)
        try client.send("POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n"
                        + "5;name=value\r\nhello\r\n")
        usleep(50_000)  // pacing, not a wait: the rest arrives in a second segment
        try client.send("6\r\n world\r\nA \r\n, chunked!\r\n0\r\nX-Checksum: abc\r\n\r\n"
                        + "GET /echo?n=next HTTP/1.1\r\nHost: t\r\n\r\n")
        let response = try client.readResponse()
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.text, "hello world, chunked!")
        XCTAssertEqual(response.header("content-length"), "21", "responses are never chunked")
        XCTAssertEqual(try client.readResponse().header("x-tag"), "next", "framing resumes after the trailers")
    }

    func testContentLengthOverTheLimitIs413WithoutCallingTheHandler() throws {
        let handler = RecordingHandler()
        let (server, port) = try startServer(handler)
        defer { server.stop() }
        let client = try RawClient(port: port)
        try client.send("POST /small HTTP/1.1\r\nHost: t\r\nContent-Length: 5000\r\n\r\n")
        try client.send([UInt8](repeating: 65, count: 5000))
        let response = try client.readResponse()
        XCTAssertEqual(response.status, 413)
        XCTAssertEqual(response.errorCode(), "payload_too_large")
        XCTAssertEqual(response.header("content-type"), "application/json; charset=utf-8")
        XCTAssertEqual(response.header("connection"), "close")
        XCTAssertTrue(response.text.contains(#""retryable":false"#))
        XCTAssertTrue(client.closedByServer(within: 4))
        XCTAssertEqual(handler.callCount, 0)
    }

    func testBodyAtTheLimitIsAccepted() throws {
        let (server, port) = try startServer(RecordingHandler())
        defer { server.stop() }
        let client = try RawClient(port: port)
        try client.send("POST /small HTTP/1.1\r\nHost: t\r\nContent-Length: 1024\r\n\r\n")
        try client.send([UInt8](repeating: 66, count: 1024))
        XCTAssertEqual(try client.readResponse().status, 200)
    }

    func testChunkedBodyOverTheLimitIs413() throws {
        let handler = RecordingHandler()
        let (server, port) = try startServer(handler)
        defer { server.stop() }
        let client = try RawClient(port: port)
        let chunk = String(repeating: "z", count: 600)
        try client.send("POST /small HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n"
                        + "258\r\n\(chunk)\r\n258\r\n\(chunk)\r\n0\r\n\r\n")
        let response = try client.readResponse()
        XCTAssertEqual(response.status, 413)
        XCTAssertEqual(response.errorCode(), "payload_too_large")
        XCTAssertEqual(handler.callCount, 0)
    }

    func testExpectContinueGetsAnInterimResponse() throws {
        let handler = RecordingHandler()
        let (server, port) = try startServer(handler)
        defer { server.stop() }
        let client = try RawClient(port: port)
        try client.send("PUT /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 4\r\nExpect: 100-continue\r\n\r\n")
        XCTAssertEqual(try client.readResponse().status, 100)
        try client.send("data")
        let response = try client.readResponse()
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.text, "data")
    }

    func testExpectContinueOverTheLimitGets413Directly() throws {
        let (server, port) = try startServer(RecordingHandler())
        defer { server.stop() }
        let client = try RawClient(port: port)
        try client.send("PUT /small HTTP/1.1\r\nHost: t\r\nContent-Length: 99999\r\nExpect: 100-continue\r\n\r\n")
        XCTAssertEqual(try client.readResponse().status, 413)
    }

    func testClientVanishingMidBodyNeverReachesTheHandler() throws {
        let handler = RecordingHandler()
        let (server, port) = try startServer(handler)
        defer { server.stop() }
        for framing in ["Content-Length: 1000\r\n", "Transfer-Encoding: chunked\r\n"] {
            let client = try RawClient(port: port)
            try client.send("PUT /echo HTTP/1.1\r\nHost: t\r\n\(framing)\r\n")
            try client.send(framing.hasPrefix("Content") ? String(repeating: "x", count: 500) : "3e8\r\nxxxx")
            XCTAssertTrue(eventually { server.openConnectionCount == 1 })
            client.close()
            XCTAssertTrue(eventually { server.openConnectionCount == 0 }, "server kept a dead connection")
        }
        XCTAssertEqual(handler.callCount, 0, "an interrupted upload must never be handled")
        // The server is still healthy.
        let client = try RawClient(port: port)
        try client.send("GET /echo HTTP/1.1\r\nHost: t\r\n\r\n")
        XCTAssertEqual(try client.readResponse().status, 200)
    }

    func testHalfClosedClientStillGetsItsResponse() throws {
        let (server, port) = try startServer(RecordingHandler())
        defer { server.stop() }
        let client = try RawClient(port: port)
        try client.send("POST /slow?ms=100 HTTP/1.1\r\nHost: t\r\nContent-Length: 2\r\n\r\nok")
        shutdown(client.fd, Int32(SHUT_WR))
        let response = try client.readResponse()
        XCTAssertEqual(response.text, "ok")
        XCTAssertTrue(client.closedByServer(within: 3))
    }
}
