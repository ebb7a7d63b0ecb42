import FleetCore
import FleetHTTPServer
import FleetStack
import XCTest

/// The reference stack's HTTP server against hostile clients (issue 16 §4): malformed request
/// lines, `Content-Length` with `Transfer-Encoding`, duplicate lengths, huge heads and bodies,
/// slow clients. Each gets 400 / 413 / 431 / 408 as fits and a close; the stack keeps serving.
final class StackFuzzTests: XCTestCase {
    private func answer(_ raw: [UInt8], port: Int) throws -> Int? {
        let client = try RawClient(port: port)
        try? client.send(raw)
        return try? client.readResponse(timeout: 5).status
    }

    func testHostileRequestsGetTheirStatusesAndTheStackSurvives() throws {
        let h = try AppStack()
        let port = h.port
        let named: [(String, [UInt8], Int)] = [
            ("no method", Array(" /config HTTP/1.1\r\nHost: t\r\n\r\n".utf8), 400),
            ("two spaces", Array("GET  /config HTTP/1.1\r\nHost: t\r\n\r\n".utf8), 400),
            ("no version", Array("GET /config\r\nHost: t\r\n\r\n".utf8), 400),
            ("binary line", [0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xfc, 0x03, 0x03, 0x0d, 0x0a, 0x0d, 0x0a], 400),
            ("NUL in target", Array("GET /con\u{0}fig HTTP/1.1\r\nHost: t\r\n\r\n".utf8), 400),
            ("CL + TE", Array("POST /auth/anonymous HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n".utf8), 400),
            ("duplicate CL", Array("POST /auth/anonymous HTTP/1.1\r\nHost: t\r\nContent-Length: 2\r\nContent-Length: 20\r\n\r\n{}".utf8), 400),
            ("huge header", Array("GET /config HTTP/1.1\r\nHost: t\r\nX-Big: \(String(repeating: "a", count: 64 * 1024))\r\n\r\n".utf8), 431),
            ("many headers", Array(("GET /config HTTP/1.1\r\nHost: t\r\n" + String(repeating: "X-A: b\r\n", count: 5000) + "\r\n").utf8), 431),
            ("huge body", Array("POST /auth/anonymous HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nContent-Length: 900000000\r\n\r\n{".utf8), 413),
            ("bad UTF-8 JSON", Array("POST /auth/anonymous HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nContent-Length: 19\r\n\r\n".utf8)
                + Array("{\"install_id\":\"".utf8) + [0xff, 0xfe] + Array("\"}".utf8), 400),
        ]
        for (name, raw, status) in named {
            XCTAssertEqual(try answer(raw, port: port), status, name)
        }
        // Random requests built from pieces of real ones, on 100 connections.
        var random = SeededRandom(seed: 16)
        let pieces = ["GET ", "POST ", "PUT ", "/sessions/", "/uploads/x?sig=", "/config", " HTTP/1.1", " HTTP/1.0", "\r\n",
                      "Host: t\r\n", "Content-Length: ", "12", "-1", "Transfer-Encoding: chunked\r\n", "Expect: 100-continue\r\n",
                      "{\"a\":", "\u{0}", "é", "%zz", ":", " ", "\r\n\r\n"]
        var answered = 0
        for _ in 0..<100 {
            let n = 1 + Int(random.next() % 12)
            let text = (0..<n).map { _ in pieces[Int(random.next() % UInt64(pieces.count))] }.joined()
            let client = try RawClient(port: port)
            try? client.send(Array(text.utf8) + Array("\r\n\r\n".utf8))
            // Whatever it answers is a status of ours or nothing (a close); never a hang.
            if let status = try? client.readResponse(timeout: 0.3).status {
                XCTAssertTrue([200, 201, 400, 401, 403, 404, 405, 408, 411, 413, 415, 426, 431, 501, 505].contains(status), text.debugDescription)
                answered += 1
            }
            client.close()
        }
        XCTAssertGreaterThan(answered, 0, "random requests get answers (a body still owed waits, and is not counted)")
        // Still serving real requests.
        let alive = try RawClient(port: port)
        try alive.send("GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n")
        XCTAssertEqual(try alive.readResponse().status, 200)
    }

    func testSlowClientGets408ThenClose() throws {
        var limits = ServerLimits()
        limits.headerTimeout = 0.4
        limits.bodyTimeout = 0.4
        let handler = RecordingHandler()
        let (server, port) = try startServer(handler, limits: limits)
        defer { server.stop() }
        for partial in ["GET /echo HTTP/1.1\r\nHost: t\r\nX-Slow: 1\r\n", "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 10\r\n\r\nabc"] {
            let client = try RawClient(port: port)
            try client.send(partial)
            let r = try client.readResponse(timeout: 3)
            XCTAssertEqual(r.status, 408, partial)
            XCTAssertEqual(r.errorCode(), "request_timeout")
            XCTAssertTrue(client.closedByServer(within: 2))
        }
        // An idle connection that never started a request is closed without an answer.
        let idle = try RawClient(port: port)
        XCTAssertTrue(idle.closedByServer(within: 3))
        XCTAssertEqual(handler.callCount, 0)
    }
}
