import FleetCore
import FleetTestSupport
import Foundation
import XCTest
@testable import FleetHTTP

/// An upload's body driven on by the I/O loop while each round sends another piece
/// (`IOLoop.driveWrites`, `EngineLevers.driveUploads`, issue 18), against real sockets: on an
/// established connection the pieces after the first go out without an epoll round trip or an
/// epoll_ctl; a socket that fills up goes back to epoll and the body still arrives whole. With
/// `FLEET_DRIVE_UPLOADS=0` the first test checks the opposite (no driving, the MOD there and back).
final class UploadDriveTests: XCTestCase {
    private func clip(_ count: Int) -> [UInt8] { (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 9) } }

    private func put(_ engine: HTTPEngine, _ server: RawHTTPServer, _ bytes: [UInt8]) -> HTTPResponse? {
        expectResponse(roundTrip(engine, HTTPRequest(method: "PUT", url: server.baseURL + "/upload", body: HTTPBody(bytes: bytes)),
                                 wait: 60))
    }

    func testAnUploadOnAnEstablishedConnectionGoesOutWithoutEpollChanges() throws {
        let server = try RawHTTPServer { r in .http(200, body: Array("\(r.body.count)".utf8)) }
        defer { server.stop() }
        let engine = try HTTPEngine()
        defer { engine.shutdown() }
        _ = expectResponse(roundTrip(engine, HTTPRequest(method: "GET", url: server.baseURL + "/warm")))
        let stats = engine.loopStats[0]
        let controls = stats.epollControls, driven = stats.drivenRounds
        let bytes = clip(48 << 10)  // three 16 KiB pieces: the first goes with the head
        let r = put(engine, server, bytes)
        XCTAssertEqual(r.map { String(decoding: $0.body, as: UTF8.self) }, "\(bytes.count)")
        XCTAssertEqual(server.requests.last?.body, bytes)
        XCTAssertEqual(server.acceptedConnections, 1, "the kept-alive connection")
        if EngineLevers.current.driveUploads {
            XCTAssertEqual(stats.drivenRounds - driven, 2, "the second and third pieces, each in a round of its own")
            XCTAssertEqual(stats.epollControls - controls, 0, "the socket stayed registered for reading throughout")
        } else {
            XCTAssertEqual(stats.drivenRounds - driven, 0)
            // (Two with lazy epoll; with FLEET_LAZY_EPOLL=0 also the GET's removal and the ADD.)
            XCTAssertGreaterThanOrEqual(stats.epollControls - controls, 2, "watched for writing, then for reading again")
        }
    }

    /// The server holds the body unread: the client can queue at most its socket's send buffer
    /// (at most `tcp_wmem`'s maximum) and the server's receive buffer (128 KiB, not grown while
    /// unread), so an upload twice the maximum and then some must find its socket full: a driven
    /// round sends nothing, and that ends the drive (no spinning on a full socket); once the
    /// server reads, epoll reports the socket writable, the drive resumes and the body arrives
    /// whole.
    func testAnUploadThatFillsTheSocketWaitsOnEpollAndArrivesWhole() throws {
        let server = try RawHTTPServer(holdBodies: true) { r in .http(200, body: Array("\(r.body.count)".utf8)) }
        defer { server.stop() }
        let engine = try HTTPEngine()
        defer { engine.shutdown() }
        _ = expectResponse(roundTrip(engine, HTTPRequest(method: "GET", url: server.baseURL + "/warm")))
        let stats = engine.loopStats[0]
        let (stalled, sockets) = (stats.stalledRounds, stats.drivenSockets)
        let wmem = String(decoding: try XCTUnwrap(FileBytes.read("/proc/sys/net/ipv4/tcp_wmem")), as: UTF8.self)
        let maxSendBuffer = try XCTUnwrap(wmem.split(whereSeparator: \.isWhitespace).last.flatMap { Int($0) })
        let bytes = clip(2 * maxSendBuffer + (1 << 20) + 12_345)
        let result = Box<Result<HTTPResponse, HTTPError>?>(nil)
        let done = DispatchSemaphore(value: 0)
        engine.send(HTTPRequest(method: "PUT", url: server.baseURL + "/upload", body: HTTPBody(bytes: bytes), timeout: 120),
                    queue: DispatchQueue(label: "test.completion")) { r in
            result.value = r
            done.signal()
        }
        if EngineLevers.current.driveUploads {
            // Wait (bounded) for what must happen: a round that finds the socket full.
            let deadline = Date().addingTimeInterval(30)
            while stats.stalledRounds == stalled && Date() < deadline { usleep(1_000) }
            XCTAssertGreaterThan(stats.stalledRounds, stalled, "the socket filled")
        }
        XCTAssertEqual(server.requests.count, 1, "the upload waits for the server (only the GET answered)")
        server.releaseBodies()
        XCTAssertEqual(done.wait(timeout: .now() + 60), .success, "the upload ends once the server reads")
        XCTAssertEqual(expectResponse(result.value).map { String(decoding: $0.body, as: UTF8.self) }, "\(bytes.count)")
        XCTAssertTrue(server.requests.last?.body == bytes, "every byte, in order")  // not Equal: 9 MB would be printed
        XCTAssertLessThanOrEqual(stats.stalledRounds - stalled, stats.drivenSockets - sockets, "at most one empty round a drive")
    }
}
