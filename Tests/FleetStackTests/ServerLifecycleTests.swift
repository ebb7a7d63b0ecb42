#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import FleetHTTPServer
import FleetStack
import FleetTestSupport
import XCTest

/// Starting, binding and surviving clients that die at the worst moment.
final class ServerLifecycleTests: XCTestCase {
    func testBadHostAndPortAreTypedErrors() {
        let handler = RecordingHandler()
        XCTAssertThrowsError(try HTTPServer(host: "not-an-ip", handler: handler).start()) { error in
            XCTAssertEqual(error as? ServerError, .invalidHost("not-an-ip"))
        }
        XCTAssertThrowsError(try HTTPServer(port: 70_000, handler: handler).start()) { error in
            XCTAssertEqual(error as? ServerError, .invalidPort(70_000))
        }
    }

    func testPortInUseNamesBind() throws {
        let (first, port) = try startServer(RecordingHandler())
        defer { first.stop() }
        let second = HTTPServer(port: port, handler: RecordingHandler())
        XCTAssertThrowsError(try second.start()) { error in
            guard case .system(let call, let code)? = error as? ServerError else {
                return XCTFail("expected a system error, got \(error)")
            }
            XCTAssertTrue(call.hasPrefix("bind"), call)
            XCTAssertEqual(code, EADDRINUSE)
            XCTAssertTrue("\(error)".contains("in use"), "\(error)")
        }
    }

    func testStartingTwiceIsRefused() throws {
        let (server, _) = try startServer(RecordingHandler())
        defer { server.stop() }
        XCTAssertThrowsError(try server.start()) { error in
            XCTAssertEqual(error as? ServerError, .alreadyStarted)
        }
    }

    func testServesIPv6LoopbackWhenAvailable() throws {
        let server = HTTPServer(host: "::1", handler: RecordingHandler())
        defer { server.stop() }
        let port: Int
        do {
            port = try server.start()
        } catch ServerError.system(let call, let code) where code == EADDRNOTAVAIL || code == EAFNOSUPPORT {
            // A machine without IPv6 must refuse with a clear bind/socket error, not crash.
            XCTAssertTrue(call.hasPrefix("bind") || call == "socket", call)
            return
        }
        let client = try RawClient(port: port, ipv6: true)
        try client.send("GET /echo HTTP/1.1\r\nHost: [::1]\r\n\r\n")
        let response = try client.readResponse()
        XCTAssertEqual(response.status, 200)
        XCTAssertTrue(response.header("x-remote")?.hasPrefix("[::1]:") ?? false, "\(response.headers)")
    }

    /// Responses written to clients that reset their connection are dropped quietly (sends use
    /// MSG_NOSIGNAL, so even a send after the reset cannot raise SIGPIPE) and the server goes on.
    func testResponsesToResetClientsLeaveTheServerHealthy() throws {
        let handler = RecordingHandler()
        let (server, port) = try startServer(handler)
        defer { server.stop() }
        let body = [UInt8](repeating: 7, count: 256 * 1024)
        for i in 0..<10 {
            let client = try RawClient(port: port)
            try client.send("POST /slow?ms=50 HTTP/1.1\r\nHost: t\r\nContent-Length: \(body.count)\r\n\r\n")
            try client.send(body)
            // Reset only once the request is being handled, so the response meets a dead socket.
            XCTAssertTrue(eventually { handler.callCount == i + 1 })
            client.reset()
        }
        XCTAssertTrue(eventually(within: 5) { server.openConnectionCount == 0 })
        // The late responses have all met their dead sockets before the server is used again.
        XCTAssertTrue(eventually(within: 10) { handler.slowResponsesGiven == 10 })
        let client = try RawClient(port: port)
        try client.send("GET /echo?n=alive HTTP/1.1\r\nHost: t\r\n\r\n")
        XCTAssertEqual(try client.readResponse().header("x-tag"), "alive")
    }

    func testDoubleRespondAndLateRespondAreIgnored() throws {
        let handler = RecordingHandler()
        let (server, port) = try startServer(handler)
        defer { server.stop() }
        // A handler that answers twice: the second answer must not become a stray response.
        let twice = HTTPServer(port: 0, handler: TwiceHandler())
        let twicePort = try twice.start()
        defer { twice.stop() }
        let client = try RawClient(port: twicePort)
        try client.send("GET /a HTTP/1.1\r\nHost: t\r\n\r\nGET /b HTTP/1.1\r\nHost: t\r\n\r\n")
        XCTAssertEqual(try client.readResponse().text, "first /a")
        XCTAssertEqual(try client.readResponse().text, "first /b")
        // The client vanishes while its request is being handled; the late respond is dropped.
        let gone = try RawClient(port: port)
        try gone.send("GET /slow?ms=150 HTTP/1.1\r\nHost: t\r\n\r\n")
        gone.close()
        XCTAssertTrue(eventually(within: 10) { handler.slowResponsesGiven == 1 }, "the late answer was given")
        let alive = try RawClient(port: port)
        try alive.send("GET /echo HTTP/1.1\r\nHost: t\r\n\r\n")
        XCTAssertEqual(try alive.readResponse().status, 200)
    }
}

/// Calls `respond` twice, once at once and once from another thread.
private final class TwiceHandler: ServerHandler {
    func bodyLimit(method: String, path: String) -> Int { 0 }
    func handle(_ request: ServerRequest, respond: @escaping @Sendable (ServerResponse) -> Void) {
        respond(ServerResponse(status: 200, body: Array("first \(request.path)".utf8)))
        let path = request.path
        DispatchQueue.global().async { respond(ServerResponse(status: 500, body: Array("second \(path)".utf8))) }
    }
}
