import Dispatch
import FleetHTTPServer
import FleetStack
import FleetTestSupport
import XCTest

/// Slow and idle clients are cut off by `ServerLimits`' timeouts (short ones, for speed).
final class ServerTimeoutTests: XCTestCase {
    private func limits(header: Double = 10, idle: Double = 60, body: Double = 60) -> ServerLimits {
        var limits = ServerLimits()
        limits.headerTimeout = header
        limits.idleTimeout = idle
        limits.bodyTimeout = body
        return limits
    }

    private func seconds(since start: UInt64) -> Double {
        Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    }

    func testSlowlorisIsClosedAfterTheHeaderTimeout() throws {
        let handler = RecordingHandler()
        let (server, port) = try startServer(handler, limits: limits(header: 0.4))
        defer { server.stop() }
        let client = try RawClient(port: port)
        let start = DispatchTime.now().uptimeNanoseconds
        try client.send("GET /echo HTTP/1.1\r\nHost: t\r\n")
        // Keep dribbling header lines, each well inside any per-read timeout.
        var closed = false
        for i in 0..<30 {
            usleep(100_000)  // the drip's pace, not a wait
            do { try client.send("X-Drip-\(i): 1\r\n") } catch { closed = true; break }
            if seconds(since: start) > 1.5 { break }
        }
        XCTAssertTrue(closed || client.closedByServer(within: 1.5), "slowloris connection survived")
        let elapsed = seconds(since: start)
        XCTAssertGreaterThan(elapsed, 0.35)
        XCTAssertLessThan(elapsed, 3)
        XCTAssertEqual(handler.callCount, 0)
    }

    func testSilentNewConnectionIsClosedAfterTheHeaderTimeout() throws {
        let (server, port) = try startServer(RecordingHandler(), limits: limits(header: 0.3))
        defer { server.stop() }
        let client = try RawClient(port: port)
        let start = DispatchTime.now().uptimeNanoseconds
        XCTAssertTrue(client.closedByServer(within: 3))
        XCTAssertGreaterThan(seconds(since: start), 0.25)
    }

    func testIdleKeepAliveConnectionIsClosedAfterTheIdleTimeout() throws {
        let (server, port) = try startServer(RecordingHandler(), limits: limits(header: 5, idle: 0.4))
        defer { server.stop() }
        let client = try RawClient(port: port)
        try client.send("GET /echo HTTP/1.1\r\nHost: t\r\n\r\n")
        XCTAssertEqual(try client.readResponse().status, 200)
        let start = DispatchTime.now().uptimeNanoseconds
        XCTAssertTrue(client.closedByServer(within: 3))
        XCTAssertGreaterThan(seconds(since: start), 0.3)
        XCTAssertTrue(eventually { server.openConnectionCount == 0 })
    }

    func testSlowBodyIsClosedAfterTheBodyTimeoutWithoutCallingTheHandler() throws {
        let handler = RecordingHandler()
        let (server, port) = try startServer(handler, limits: limits(body: 0.4))
        defer { server.stop() }
        let client = try RawClient(port: port)
        try client.send("PUT /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 100\r\n\r\n0123456789")
        XCTAssertTrue(client.closedByServer(within: 3))
        XCTAssertEqual(handler.callCount, 0)
    }

    func testAWaitingHandlerIsNotAnIdleClient() throws {
        let (server, port) = try startServer(RecordingHandler(), limits: limits(header: 0.2, idle: 0.2))
        defer { server.stop() }
        let client = try RawClient(port: port)
        try client.send("GET /slow?ms=600&n=late HTTP/1.1\r\nHost: t\r\n\r\n")
        XCTAssertEqual(try client.readResponse().header("x-tag"), "late")
    }
}
