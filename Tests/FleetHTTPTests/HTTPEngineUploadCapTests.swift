import Dispatch
import FleetCore
import FleetTestSupport
import Foundation
import XCTest
@testable import FleetHTTP

/// `maxConcurrentUploads`: clip uploads beyond the cap wait in a queue (never dropped), a
/// waiting upload can be cancelled, and small API bodies never wait behind clips.
final class HTTPEngineUploadCapTests: XCTestCase {
    func testUploadsBeyondTheCapWaitAndAllArrive() throws {
        // The server counts uploads it is answering at once; each answer takes 100 ms, so
        // without the cap all eight would overlap.
        let answering = Box(0), most = Box(0)
        let server = try RawHTTPServer { request in
            let now = answering.mutate { $0 += 1; return $0 }
            most.mutate { $0 = max($0, now) }
            usleep(100_000)  // the server's own answer time, not a wait
            answering.mutate { $0 -= 1 }
            return .http(request.body.count == 200_000 ? 204 : 400)
        }
        defer { server.stop() }
        var config = HTTPEngine.Configuration()
        config.maxConcurrentUploads = 2
        let engine = try HTTPEngine(configuration: config)
        defer { engine.shutdown() }
        let clip = SharedBytes([UInt8](repeating: 3, count: 200_000))
        let ok = Box(0), sawWaiting = Box(0)
        let group = DispatchGroup()
        for _ in 0..<8 {
            group.enter()
            engine.send(HTTPRequest(method: "PUT", url: server.baseURL + "/clip", body: HTTPBody(clip)),
                        queue: .global()) { result in
                if case .success(let r) = result, r.status == 204 { ok.mutate { $0 += 1 } }
                group.leave()
            }
        }
        let deadline = Date().addingTimeInterval(10)
        while group.wait(timeout: .now() + 0.02) == .timedOut && Date() < deadline {
            sawWaiting.mutate { $0 = max($0, engine.uploadsWaiting) }
        }
        XCTAssertEqual(ok.value, 8, "every queued upload is sent, none dropped")
        XCTAssertLessThanOrEqual(most.value, 2, "no more than the cap upload at once")
        XCTAssertGreaterThan(sawWaiting.value, 0, "uploads beyond the cap were seen waiting")
        XCTAssertEqual(engine.uploadsWaiting, 0)
    }

    func testWaitingUploadCancelsPromptlyAndSmallBodiesDoNotWait() throws {
        let server = try RawHTTPServer { request in request.path == "/stall" ? .silence : .http(200) }
        defer { server.stop() }
        var config = HTTPEngine.Configuration()
        config.maxConcurrentUploads = 1
        let engine = try HTTPEngine(configuration: config)
        defer { engine.shutdown() }
        let clip = HTTPBody(SharedBytes([UInt8](repeating: 5, count: 100_000)))

        // The first clip takes the only slot and never gets an answer.
        engine.send(HTTPRequest(method: "PUT", url: server.baseURL + "/stall", body: clip, timeout: 30),
                    queue: .global()) { _ in }
        let waitingResult = Box<Result<HTTPResponse, HTTPError>?>(nil)
        let waitingDone = DispatchSemaphore(value: 0)
        let waiting = engine.send(HTTPRequest(method: "PUT", url: server.baseURL + "/second", body: clip),
                                  queue: .global()) { result in
            waitingResult.value = result
            waitingDone.signal()
        }
        _ = eventually(within: 5, every: 0.005) { engine.uploadsWaiting > 0 }
        XCTAssertEqual(engine.uploadsWaiting, 1, "the second clip waits for the slot")

        // A JSON-sized POST goes straight through while the clip slot is held.
        let post = roundTrip(engine, HTTPRequest(method: "POST", url: server.baseURL + "/api",
                                                 body: HTTPBody(bytes: Array(#"{"a":1}"#.utf8))), wait: 5)
        XCTAssertEqual(expectResponse(post)?.status, 200)

        let cancelledAt = Date()
        waiting.cancel()
        XCTAssertEqual(waitingDone.wait(timeout: .now() + 2), .success, "a waiting upload completes when cancelled")
        XCTAssertLessThan(Date().timeIntervalSince(cancelledAt), 1)
        if case .failure(let e)? = waitingResult.value {
            XCTAssertEqual(e.kind, .aborted)
        } else {
            XCTFail("expected .aborted, got \(String(describing: waitingResult.value))")
        }
        XCTAssertEqual(engine.uploadsWaiting, 0)
        XCTAssertFalse(server.requests.contains { $0.path == "/second" }, "the cancelled clip was never sent")
    }
}
