import Dispatch
import Foundation
import FleetStack
import FleetTestSupport
import XCTest
@testable import FleetHTTP

/// The engine against the real reference stack over loopback (its own HTTP/1.1 server).
final class HTTPEngineStackTests: XCTestCase {
    private var stack: ReferenceStack?
    private var baseURL = ""

    override func setUpWithError() throws {
        let s = try ReferenceStack(settings: StackSettings())
        baseURL = try s.start()
        stack = s
    }

    override func tearDown() {
        stack?.stop()
        stack = nil
    }

    func testHealthzAnswers200WithOrderedTimings() throws {
        let engine = try HTTPEngine()
        defer { engine.shutdown() }
        guard let r = expectResponse(roundTrip(engine, HTTPRequest(method: "GET", url: baseURL + "/healthz"))) else { return }
        XCTAssertEqual(r.status, 200)
        XCTAssertTrue(String(decoding: r.body, as: UTF8.self).contains("ok"))
        XCTAssertTrue(r.header("content-type")?.contains("application/json") ?? false, "\(r.headers)")
        let t = r.timings
        XCTAssertGreaterThan(t.connectMicros, 0)
        XCTAssertLessThanOrEqual(t.dnsMicros, t.connectMicros)
        XCTAssertLessThanOrEqual(t.connectMicros, t.firstByteMicros)
        XCTAssertLessThanOrEqual(t.firstByteMicros, t.totalMicros)
    }

    func testJSONPostReachesTheStackIntactAndSameInstallIsSameUser() throws {
        let engine = try HTTPEngine()
        defer { engine.shutdown() }
        let body = #"{"install_id":"engine-test-1","timezone":"UTC","locale":"en-US","app_version":"1.0.0","platform":"ios"}"#
        func auth() -> [String: Any]? {
            let request = HTTPRequest(method: "POST", url: baseURL + "/auth/anonymous",
                                      headers: [HTTPHeader("Content-Type", "application/json; charset=utf-8"),
                                                HTTPHeader("Accept-Language", "en-US")],
                                      body: HTTPBody(bytes: Array(body.utf8)))
            guard let r = expectResponse(roundTrip(engine, request)) else { return nil }
            XCTAssertEqual(r.status, 200, String(decoding: r.body, as: UTF8.self))
            return (try? JSONSerialization.jsonObject(with: Data(r.body))) as? [String: Any]
        }
        let first = try XCTUnwrap(auth())
        let second = try XCTUnwrap(auth())
        XCTAssertNotNil(first["access_token"] as? String)
        XCTAssertEqual(first["user_id"] as? String, second["user_id"] as? String)
    }

    func testFiveHundredConcurrentRequestsToTheStackAllSucceedOnce() throws {
        let engine = try HTTPEngine()
        defer { engine.shutdown() }
        let n = 500
        let statuses = Box([Int](repeating: 0, count: n))
        let calls = Box(0)
        let group = DispatchGroup()
        let queue = DispatchQueue(label: "stack.completions")
        for i in 0..<n {
            group.enter()
            engine.send(HTTPRequest(method: "GET", url: baseURL + "/healthz"), queue: queue) { result in
                calls.mutate { $0 += 1 }
                if case .success(let r) = result { statuses.mutate { $0[i] = r.status } }
                group.leave()
            }
        }
        XCTAssertEqual(group.wait(timeout: .now() + 30), .success)
        XCTAssertEqual(calls.value, n)
        XCTAssertEqual(Set(statuses.value), [200])
    }
}
