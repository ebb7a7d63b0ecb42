import Dispatch
import FleetCore
import FleetTestSupport
import XCTest
@testable import FleetHTTP

/// Many transfers at once, cancellation and shutdown: every completion runs exactly once.
final class HTTPEngineLifecycleTests: XCTestCase {
    func testThousandConcurrentRequestsCompleteExactlyOnceEach() throws {
        let server = try RawHTTPServer { req in .http(200, body: Array(req.path.utf8)) }
        defer { server.stop() }
        var config = HTTPEngine.Configuration()
        // The raw test server spends a thread per connection; curl queues the rest.
        config.maxConnections = 32
        config.ioThreads = 2
        let engine = try HTTPEngine(configuration: config)
        defer { engine.shutdown() }

        let n = 1000
        let counts = Box([Int](repeating: 0, count: n))
        let mismatches = Box(0)
        let group = DispatchGroup()
        let queue = DispatchQueue(label: "test.completions", attributes: .concurrent)
        for i in 0..<n {
            group.enter()
            engine.send(HTTPRequest(method: "GET", url: server.baseURL + "/\(i)"), queue: queue) { result in
                counts.mutate { $0[i] += 1 }
                if case .success(let r) = result, r.body == Array("/\(i)".utf8) {} else { mismatches.mutate { $0 += 1 } }
                group.leave()
            }
        }
        XCTAssertGreaterThan(engine.inFlight, 0)
        XCTAssertEqual(group.wait(timeout: .now() + 30), .success, "all 1000 complete")
        XCTAssertTrue(eventually { engine.inFlight == 0 }, "\(engine.inFlight) still in flight")
        // Shutdown joins the I/O threads, so no completion can be dispatched after it; the barrier
        // then lets every completion already queued run. A duplicate would be counted by now.
        engine.shutdown()
        queue.sync(flags: .barrier) {}
        XCTAssertEqual(counts.value.filter { $0 != 1 }.count, 0, "each completion ran exactly once")
        XCTAssertEqual(mismatches.value, 0, "each got its own response")
        XCTAssertEqual(engine.inFlight, 0)
    }

    func testConnectionCapHoldsEngineWideAndQueuesTheRest() throws {
        let server = try RawHTTPServer { _ in .http(200) }
        defer { server.stop() }
        var config = HTTPEngine.Configuration()
        config.maxConnections = 2
        let engine = try HTTPEngine(configuration: config)
        defer { engine.shutdown() }
        let ok = Box(0)
        let group = DispatchGroup()
        for _ in 0..<40 {
            group.enter()
            engine.send(HTTPRequest(method: "GET", url: server.baseURL), queue: .global()) { result in
                if case .success(let r) = result, r.status == 200 { ok.mutate { $0 += 1 } }
                group.leave()
            }
        }
        XCTAssertEqual(group.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(ok.value, 40)
        XCTAssertLessThanOrEqual(server.acceptedConnections, 2, "the cap is for the whole engine, not per multi handle")
    }

    func testCancelAbortsInFlightTransferPromptlyAndOnlyOnce() throws {
        let server = try RawHTTPServer { _ in .silence }
        defer { server.stop() }
        let engine = try HTTPEngine()
        defer { engine.shutdown() }
        let results = Box<[Result<HTTPResponse, HTTPError>]>([])
        let done = DispatchSemaphore(value: 0)
        let queue = DispatchQueue(label: "c")
        let transfer = engine.send(HTTPRequest(method: "GET", url: server.baseURL, timeout: 20), queue: queue) { result in
            results.mutate { $0.append(result) }
            done.signal()
        }
        XCTAssertTrue(eventually { server.requests.count == 1 }, "the request reached the server")
        let start = MonotonicClock.now()
        transfer.cancel()
        transfer.cancel()
        XCTAssertEqual(done.wait(timeout: .now() + 2), .success)
        XCTAssertLessThan(Double(MonotonicClock.now() - start) / 1e9, 1.0)
        transfer.cancel()
        engine.shutdown()  // joins the I/O thread: no completion can come after this
        queue.sync {}
        XCTAssertEqual(results.value.count, 1)
        guard case .failure(let error) = results.value.first else { return XCTFail("expected .aborted") }
        XCTAssertEqual(error.kind, .aborted)
        XCTAssertEqual(engine.inFlight, 0)
    }

    func testCancelAfterCompletionChangesNothing() throws {
        let server = try RawHTTPServer { _ in .http(200) }
        defer { server.stop() }
        let engine = try HTTPEngine()
        defer { engine.shutdown() }
        let calls = Box(0)
        let done = DispatchSemaphore(value: 0)
        let queue = DispatchQueue(label: "c")
        let transfer = engine.send(HTTPRequest(method: "GET", url: server.baseURL), queue: queue) { result in
            if case .success = result { calls.mutate { $0 += 1 } }
            done.signal()
        }
        XCTAssertEqual(done.wait(timeout: .now() + 5), .success)
        transfer.cancel()
        engine.shutdown()  // joins the I/O thread: no completion can come after this
        queue.sync {}
        XCTAssertEqual(calls.value, 1)
    }

    func testShutdownAbortsEverythingPendingAndLaterSends() throws {
        let server = try RawHTTPServer { _ in .silence }
        defer { server.stop() }
        let engine = try HTTPEngine()
        let kinds = Box<[HTTPErrorKind]>([])
        let group = DispatchGroup()
        for _ in 0..<5 {
            group.enter()
            engine.send(HTTPRequest(method: "GET", url: server.baseURL, timeout: 20), queue: .global()) { result in
                if case .failure(let e) = result { kinds.mutate { $0.append(e.kind) } }
                group.leave()
            }
        }
        XCTAssertTrue(eventually { server.requests.count == 5 }, "all five requests reached the server")
        let start = MonotonicClock.now()
        engine.shutdown()
        XCTAssertEqual(group.wait(timeout: .now() + 2), .success)
        XCTAssertLessThan(Double(MonotonicClock.now() - start) / 1e9, 1.5)
        XCTAssertEqual(kinds.value, [HTTPErrorKind](repeating: .aborted, count: 5))
        engine.shutdown()  // idempotent

        let late = expectError(roundTrip(engine, HTTPRequest(method: "GET", url: server.baseURL)))
        XCTAssertEqual(late?.kind, .aborted)
        XCTAssertEqual(engine.inFlight, 0)
    }
}
