import Dispatch
import FleetHTTPServer
import Synchronization
import FleetTestSupport
import XCTest

/// Many connections at once, responses from many threads, and the connection cap.
final class ServerConcurrencyTests: XCTestCase {
    func testTwoHundredConcurrentConnections() throws {
        let handler = RecordingHandler()
        let (server, port) = try startServer(handler)
        defer { server.stop() }
        let clients = try (0..<200).map { _ in try RawClient(port: port) }
        XCTAssertTrue(eventually { server.openConnectionCount == 200 }, "open: \(server.openConnectionCount)")
        // Every connection has two requests in flight before any response is read; half of the
        // answers come from other threads after a delay.
        for (i, client) in clients.enumerated() {
            try client.send("GET /slow?ms=\(i % 2 == 0 ? 20 : 0)&n=\(i)-a HTTP/1.1\r\nHost: t\r\n\r\n"
                            + "POST /echo?n=\(i)-b HTTP/1.1\r\nHost: t\r\nContent-Length: \(String(i).utf8.count)\r\n\r\n\(i)")
        }
        for (i, client) in clients.enumerated() {
            let first = try client.readResponse()
            let second = try client.readResponse()
            XCTAssertEqual(first.header("x-tag"), "\(i)-a")
            XCTAssertEqual(second.header("x-tag"), "\(i)-b")
            XCTAssertEqual(second.text, "\(i)")
        }
        XCTAssertEqual(handler.callCount, 400)
        let remotes = Set(handler.requests.map(\.remoteAddress))
        XCTAssertEqual(remotes.count, 200)
    }

    func testParallelClientsOnManyThreads() throws {
        let (server, port) = try startServer(RecordingHandler())
        defer { server.stop() }
        let failures = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 16) { worker in
            do {
                let client = try RawClient(port: port)
                for j in 0..<50 {
                    try client.send("POST /echo?n=\(worker)-\(j) HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\n\r\nhello")
                    let response = try client.readResponse()
                    if response.header("x-tag") != "\(worker)-\(j)" || response.text != "hello" {
                        failures.withLock { $0.append("worker \(worker) request \(j): wrong response") }
                    }
                }
            } catch {
                failures.withLock { $0.append("worker \(worker): \(error)") }
            }
        }
        XCTAssertEqual(failures.withLock { $0 }, [])
    }

    func testConnectionsOverTheCapAreClosedAtOnce() throws {
        var limits = ServerLimits()
        limits.maxConnections = 3
        let (server, port) = try startServer(RecordingHandler(), limits: limits)
        defer { server.stop() }
        let kept = try (0..<3).map { _ in try RawClient(port: port) }
        XCTAssertTrue(eventually { server.openConnectionCount == 3 })
        let refused = try RawClient(port: port)
        XCTAssertTrue(refused.closedByServer(within: 3))
        for client in kept {
            try client.send("GET /echo HTTP/1.1\r\nHost: t\r\n\r\n")
            XCTAssertEqual(try client.readResponse().status, 200)
        }
    }
}
