import FleetHTTPServer
import FleetStack
import FleetTestSupport
import XCTest

/// Keep-alive, pipelining, HTTP/1.0 and `Connection: close` over real loopback sockets.
final class ServerKeepAliveTests: XCTestCase {
    func testKeepAliveReusesOneConnection() throws {
        let handler = RecordingHandler()
        let (server, port) = try startServer(handler)
        defer { server.stop() }
        let client = try RawClient(port: port)
        var remotes: Set<String> = []
        for i in 0..<3 {
            try client.send("GET /echo?n=\(i) HTTP/1.1\r\nHost: t\r\n\r\n")
            let response = try client.readResponse()
            XCTAssertEqual(response.status, 200)
            XCTAssertEqual(response.header("x-tag"), "\(i)")
            XCTAssertNil(response.header("connection"), "a keep-alive response must not announce close")
            remotes.insert(response.header("x-remote") ?? "")
        }
        XCTAssertEqual(remotes.count, 1, "all three requests should come from one client port")
        XCTAssertTrue(remotes.first!.hasPrefix("127.0.0.1:"), "remote address was \(remotes)")
        XCTAssertEqual(server.openConnectionCount, 1)
    }

    func testPipelinedRequestsAreAnsweredInRequestOrder() throws {
        let handler = RecordingHandler()
        let (server, port) = try startServer(handler)
        defer { server.stop() }
        let client = try RawClient(port: port)
        // The first answer is the slowest and comes from another thread: order must still hold.
        try client.send("GET /slow?ms=200&n=1 HTTP/1.1\r\nHost: t\r\n\r\n"
                        + "POST /echo?n=2 HTTP/1.1\r\nHost: t\r\nContent-Length: 3\r\n\r\nabc"
                        + "GET /slow?ms=50&n=3 HTTP/1.1\r\nHost: t\r\n\r\n")
        let tags = try (0..<3).map { _ in try client.readResponse().header("x-tag") }
        XCTAssertEqual(tags, ["1", "2", "3"])
        XCTAssertEqual(handler.callCount, 3)
    }

    func testHTTP10ClosesAfterTheResponse() throws {
        let (server, port) = try startServer(RecordingHandler())
        defer { server.stop() }
        let client = try RawClient(port: port)
        try client.send("GET /echo HTTP/1.0\r\n\r\n")
        let response = try client.readResponse()
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.header("connection"), "close")
        XCTAssertTrue(client.closedByServer(within: 3))
    }

    func testHTTP10KeepAliveIsHonoured() throws {
        let (server, port) = try startServer(RecordingHandler())
        defer { server.stop() }
        let client = try RawClient(port: port)
        for _ in 0..<2 {
            try client.send("GET /echo HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
            let response = try client.readResponse()
            XCTAssertEqual(response.header("connection"), "keep-alive")
        }
    }

    func testConnectionCloseIsHonouredAndLaterPipelinedRequestsIgnored() throws {
        let handler = RecordingHandler()
        let (server, port) = try startServer(handler)
        defer { server.stop() }
        let client = try RawClient(port: port)
        try client.send("GET /echo?n=1 HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n"
                        + "GET /echo?n=2 HTTP/1.1\r\nHost: t\r\n\r\n")
        let response = try client.readResponse()
        XCTAssertEqual(response.header("x-tag"), "1")
        XCTAssertEqual(response.header("connection"), "close")
        XCTAssertTrue(client.closedByServer(within: 3))
        XCTAssertEqual(handler.callCount, 1)
    }

    func testHeadResponseHasLengthButNoBody() throws {
        let (server, port) = try startServer(RecordingHandler())
        defer { server.stop() }
        let client = try RawClient(port: port)
        // /echo answers with the request body: a HEAD carrying 5 bytes gets content-length 5.
        try client.send("HEAD /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\n\r\nhello")
        let head = try client.readResponse(headRequest: true)
        XCTAssertEqual(head.header("content-length"), "5")
        XCTAssertEqual(head.body, [])
        // If the body had been sent anyway, this response would be misparsed.
        try client.send("GET /echo?n=after HTTP/1.1\r\nHost: t\r\n\r\n")
        XCTAssertEqual(try client.readResponse().header("x-tag"), "after")
    }

    func testPathAndQueryAreDecoded() throws {
        let handler = RecordingHandler()
        let (server, port) = try startServer(handler)
        defer { server.stop() }
        let client = try RawClient(port: port)
        try client.send("GET /a%20b/%E4%B8%AD?x=1&y=hello+world&x=2&flag HTTP/1.1\r\nHost: t\r\nX-Case: Kept\r\n\r\n")
        XCTAssertEqual(try client.readResponse().status, 200)
        let request = try XCTUnwrap(handler.requests.first)
        XCTAssertEqual(request.target, "/a%20b/%E4%B8%AD?x=1&y=hello+world&x=2&flag")
        XCTAssertEqual(request.path, "/a b/中")
        XCTAssertEqual(request.query, ["x": "2", "y": "hello world", "flag": ""])
        XCTAssertEqual(request.header("x-case"), "Kept")
        XCTAssertTrue(request.headers.contains { $0.name == "X-Case" }, "header names keep their case")
    }

    func testAbsoluteFormTargetIsReducedToItsPath() throws {
        let handler = RecordingHandler()
        let (server, port) = try startServer(handler)
        defer { server.stop() }
        let client = try RawClient(port: port)
        try client.send("GET http://127.0.0.1/abs/x?n=1 HTTP/1.1\r\nHost: t\r\n\r\n"
                        + "GET https://host:8443?n=2 HTTP/1.1\r\nHost: t\r\n\r\n")
        XCTAssertEqual(try client.readResponse().header("x-path"), "/abs/x")
        XCTAssertEqual(try client.readResponse().header("x-path"), "/")
        XCTAssertEqual(handler.requests.map(\.query), [["n": "1"], ["n": "2"]])
    }

    func testStopClosesOpenConnectionsAndRespondAfterwardsIsHarmless() throws {
        let handler = RecordingHandler()
        let (server, port) = try startServer(handler)
        let client = try RawClient(port: port)
        try client.send("GET /slow?ms=300 HTTP/1.1\r\nHost: t\r\n\r\n")
        XCTAssertTrue(eventually { handler.callCount == 1 })
        server.stop()
        XCTAssertTrue(client.closedByServer(within: 3))
        // The handler's late respond() lands on a stopped server (waited for, not slept on).
        XCTAssertTrue(eventually(within: 10) { handler.slowResponsesGiven == 1 })
        XCTAssertEqual(server.openConnectionCount, 0)
        XCTAssertThrowsError(try server.start(), "a stopped server does not start again")
    }
}
