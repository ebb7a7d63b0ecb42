import FleetCore
import FleetTestSupport
import XCTest
@testable import FleetHTTP

/// Every failure becomes the right error kind, and a hostile server cannot crash the engine.
final class HTTPEngineErrorTests: XCTestCase {
    func testClosedPortIsConnectError() throws {
        let engine = try HTTPEngine()
        defer { engine.shutdown() }
        let url = "http://127.0.0.1:\(freeLoopbackPort())/"
        let error = expectError(roundTrip(engine, HTTPRequest(method: "GET", url: url)))
        XCTAssertEqual(error?.kind, .connect, "\(String(describing: error))")
    }

    func testUnresolvableHostIsDNSError() throws {
        let engine = try HTTPEngine()
        defer { engine.shutdown() }
        let error = expectError(roundTrip(engine, HTTPRequest(method: "GET", url: "http://no-such-host.invalid/", timeout: 8)))
        XCTAssertEqual(error?.kind, .dns, "\(String(describing: error))")
    }

    func testSilentServerIsTimeoutErrorAfterTheTimeout() throws {
        let server = try RawHTTPServer { _ in .silence }
        defer { server.stop() }
        let engine = try HTTPEngine()
        defer { engine.shutdown() }
        let start = MonotonicClock.now()
        let error = expectError(roundTrip(engine, HTTPRequest(method: "GET", url: server.baseURL, timeout: 0.3)))
        let elapsed = Double(MonotonicClock.now() - start) / 1e9
        XCTAssertEqual(error?.kind, .timeout, "\(String(describing: error))")
        XCTAssertGreaterThanOrEqual(elapsed, 0.29)
        XCTAssertLessThan(elapsed, 2.0)
        XCTAssertNotNil(error?.timings, "a timeout still reports how far it got")
    }

    func testServerClosingWithoutAnswerIsResetError() throws {
        let server = try RawHTTPServer { _ in .close }
        defer { server.stop() }
        let engine = try HTTPEngine()
        defer { engine.shutdown() }
        let error = expectError(roundTrip(engine, HTTPRequest(method: "GET", url: server.baseURL)))
        XCTAssertEqual(error?.kind, .reset, "\(String(describing: error))")
    }

    func testTruncatedBodyIsTruncatedError() throws {
        let server = try RawHTTPServer { _ in .raw(Array("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nshort".utf8)) }
        defer { server.stop() }
        // The server keeps the connection open after the short body; make it close by stopping.
        let engine = try HTTPEngine()
        defer { engine.shutdown() }
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.3) { server.stop() }
        let error = expectError(roundTrip(engine, HTTPRequest(method: "GET", url: server.baseURL, timeout: 5)))
        XCTAssertEqual(error?.kind, .truncated, "\(String(describing: error))")
    }

    func testOversizedBodyFailsAsBodyTooLargeWithoutGrowingPastTheCap() throws {
        let server = try RawHTTPServer { _ in .http(200, body: [UInt8](repeating: 65, count: 64 * 1024)) }
        defer { server.stop() }
        var config = HTTPEngine.Configuration()
        config.maxResponseBytes = 4096
        let engine = try HTTPEngine(configuration: config)
        defer { engine.shutdown() }
        let error = expectError(roundTrip(engine, HTTPRequest(method: "GET", url: server.baseURL)))
        XCTAssertEqual(error?.kind, .bodyTooLarge)
        XCTAssertTrue(error?.message.contains("4096") ?? false, "\(String(describing: error))")
    }

    func testHugeHeadersAndGarbageAreErrorsNotCrashes() throws {
        let manyHeaders = String(repeating: "X-Pad: \(String(repeating: "a", count: 1000))\r\n", count: 2000)
        let server = try RawHTTPServer { req in
            switch req.path {
            case "/huge": return .raw(Array("HTTP/1.1 200 OK\r\n\(manyHeaders)Content-Length: 0\r\n\r\n".utf8))
            case "/longline": return .raw(Array("HTTP/1.1 200 OK\r\nX-Long: \(String(repeating: "b", count: 300_000))\r\n\r\n".utf8))
            default: return .raw(Array("\u{0}\u{1}garbage that is not HTTP at all\r\n\r\n".utf8))
            }
        }
        defer { server.stop() }
        let engine = try HTTPEngine()
        defer { engine.shutdown() }
        let huge = expectError(roundTrip(engine, HTTPRequest(method: "GET", url: server.baseURL + "/huge", timeout: 5)))
        XCTAssertTrue(huge?.message.contains("headers larger than") ?? false, "\(String(describing: huge))")
        let kinds: [(String, HTTPErrorKind)] = [("/huge", .headerTooLarge), ("/longline", .headerTooLarge),
                                                ("/garbage", .protocolError)]
        for (path, kind) in kinds {
            let error = expectError(roundTrip(engine, HTTPRequest(method: "GET", url: server.baseURL + path, timeout: 5)))
            XCTAssertEqual(error?.kind, kind, "\(path): \(String(describing: error))")
        }
        // The engine still works afterwards.
        let ok = try RawHTTPServer { _ in .http(200) }
        defer { ok.stop() }
        XCTAssertEqual(expectResponse(roundTrip(engine, HTTPRequest(method: "GET", url: ok.baseURL)))?.status, 200)
    }

    func testUploadCutAfterBytesIsAbortedAndSendsNoMore() throws {
        let server = try RawHTTPServer { _ in .http(200) }
        defer { server.stop() }
        let engine = try HTTPEngine()
        defer { engine.shutdown() }
        var request = HTTPRequest(method: "PUT", url: server.baseURL + "/u",
                                  body: HTTPBody(SharedBytes([UInt8](repeating: 7, count: 200_000))))
        request.abortUploadAfterBytes = 50_000
        let error = expectError(roundTrip(engine, request))
        XCTAssertEqual(error?.kind, .aborted, "\(String(describing: error))")
        XCTAssertTrue(error?.message.contains("50000") ?? false, "\(String(describing: error))")
        // The server saw a partial body of at most the cut, and never a complete request.
        _ = eventually(within: 2) { !server.truncatedBodyBytes.isEmpty }
        XCTAssertTrue(server.requests.isEmpty)
        let partial = try XCTUnwrap(server.truncatedBodyBytes.first)
        XCTAssertLessThanOrEqual(partial, 50_000)
        XCTAssertGreaterThan(partial, 0)
    }

    func testMalformedURLIsOtherError() throws {
        let engine = try HTTPEngine()
        defer { engine.shutdown() }
        let error = expectError(roundTrip(engine, HTTPRequest(method: "GET", url: "ht!tp://[::1")))
        XCTAssertEqual(error?.kind, .other, "\(String(describing: error))")
    }
}
