import FleetCore
import FleetTestSupport
import XCTest
@testable import FleetHTTP

/// Normal exchanges against a raw loopback server: what goes out on the wire, what comes back.
final class HTTPEngineExchangeTests: XCTestCase {
    func testGetReturnsStatusHeadersBodyAndOrderedTimings() throws {
        let server = try RawHTTPServer { _ in
            .http(201, headers: [("X-Trace", "abc"), ("Content-Type", "text/plain")], body: Array("hello".utf8))
        }
        defer { server.stop() }
        let engine = try HTTPEngine()
        defer { engine.shutdown() }

        let request = HTTPRequest(method: "GET", url: server.baseURL + "/path?q=1",
                                  headers: [HTTPHeader("Authorization", "Bearer t")])
        guard let response = expectResponse(roundTrip(engine, request)) else { return }
        XCTAssertEqual(response.status, 201)
        XCTAssertEqual(response.body, Array("hello".utf8))
        XCTAssertEqual(response.header("x-trace"), "abc")
        XCTAssertEqual(response.header("CONTENT-TYPE"), "text/plain")
        XCTAssertNil(response.header("X-Missing"))
        // The same lookups as bytes, over the raw block as received and over split headers.
        XCTAssertEqual(response.withHeader("X-TRACE") { $0.map { Array($0) } }, Array("abc".utf8))
        XCTAssertNil(response.withHeader("X-Missing") { $0.map { Array($0) } })
        var split = response
        split.headers = response.headers
        XCTAssertEqual(split.withHeader("content-type") { $0.map { Array($0) } }, Array("text/plain".utf8))
        XCTAssertNil(split.withHeader("X-Tra") { $0.map { Array($0) } }, "a prefix of a name is not the name")
        let t = response.timings
        XCTAssertGreaterThan(t.totalMicros, 0)
        XCTAssertGreaterThan(t.connectMicros, 0, "a fresh connection reports its connect time")
        XCTAssertLessThanOrEqual(t.dnsMicros, t.connectMicros)
        XCTAssertLessThanOrEqual(t.connectMicros, t.firstByteMicros)
        XCTAssertLessThanOrEqual(t.firstByteMicros, t.totalMicros)

        let seen = server.requests
        XCTAssertEqual(seen.count, 1)
        XCTAssertEqual(seen.first?.method, "GET")
        XCTAssertEqual(seen.first?.path, "/path?q=1")
        XCTAssertEqual(seen.first?.header("Authorization"), "Bearer t")
    }

    func testUploadSliceArrivesIntactWithContentLengthAndNoExpect() throws {
        let server = try RawHTTPServer { req in
            .http(200, body: Array(SHA256.hex(req.body).utf8))
        }
        defer { server.stop() }
        let engine = try HTTPEngine()
        defer { engine.shutdown() }

        var rng = SeededRandom(seed: 7)
        let all = SharedBytes((0..<3_000_000).map { _ in UInt8(truncatingIfNeeded: rng.next()) })
        let slice = 1_000_003..<2_500_000
        let request = HTTPRequest(method: "PUT", url: server.baseURL + "/upload",
                                  headers: [HTTPHeader("Content-Type", "audio/flac")],
                                  body: HTTPBody(all, range: slice))
        guard let response = expectResponse(roundTrip(engine, request)) else { return }
        XCTAssertEqual(String(decoding: response.body, as: UTF8.self), SHA256.hex(all.copyBytes(slice)))
        let seen = try XCTUnwrap(server.requests.first)
        XCTAssertEqual(seen.method, "PUT")
        XCTAssertEqual(seen.header("Content-Length"), String(slice.count))
        XCTAssertEqual(seen.header("Content-Type"), "audio/flac")
        XCTAssertNil(seen.header("Expect"), "no 100-continue round trip before the body")
        XCTAssertNil(seen.header("Transfer-Encoding"))
    }

    func testPostWithJSONBodyAndPostWithoutBodyAndDelete() throws {
        let server = try RawHTTPServer { req in .http(200, body: req.body) }
        defer { server.stop() }
        let engine = try HTTPEngine()
        defer { engine.shutdown() }

        let json = Array(#"{"a":1}"#.utf8)
        let post = HTTPRequest(method: "POST", url: server.baseURL + "/a", body: HTTPBody(bytes: json))
        XCTAssertEqual(expectResponse(roundTrip(engine, post))?.body, json)
        let empty = HTTPRequest(method: "POST", url: server.baseURL + "/b")
        XCTAssertEqual(expectResponse(roundTrip(engine, empty))?.status, 200)
        let delete = HTTPRequest(method: "DELETE", url: server.baseURL + "/c")
        XCTAssertEqual(expectResponse(roundTrip(engine, delete))?.status, 200)

        let seen = server.requests
        XCTAssertEqual(seen.map(\.method), ["POST", "POST", "DELETE"])
        XCTAssertEqual(seen[0].header("Content-Length"), "7")
        XCTAssertEqual(seen[1].header("Content-Length"), "0", "a bodiless POST still says its length")
        XCTAssertEqual(seen.map(\.path), ["/a", "/b", "/c"])
    }

    /// Small bodies go out through CURLOPT_POSTFIELDS (with the head, in one send): the server
    /// must see exactly what the upload path sent — the method named, the body, its length, the
    /// Content-Type given or none (curl would add a form type), no Expect, no chunking — and a
    /// body one byte past the limit, a slice of shared bytes, and a cut upload take the upload path.
    func testSmallBodiesArriveAsTheUploadPathSentThem() throws {
        let server = try RawHTTPServer { req in .http(200, body: req.body) }
        defer { server.stop() }
        let engine = try HTTPEngine()
        defer { engine.shutdown() }
        var rng = SeededRandom(seed: 11)
        let shared = SharedBytes((0..<40_000).map { _ in UInt8(truncatingIfNeeded: rng.next()) })
        let limit = EasyHandle.inlineBodyLimit
        let json = HTTPBody(bytes: Array(#"{"answer":"é"}"#.utf8))
        let cases: [(method: String, body: HTTPBody, type: String?)] = [
            ("POST", json, "application/json"), ("PATCH", json, "application/json"), ("PUT", json, nil),
            ("POST", json, nil), ("DELETE", json, nil),
            ("POST", HTTPBody(shared, range: 1_000..<(1_000 + limit)), "application/octet-stream"),
            ("PATCH", HTTPBody(shared, range: 7..<(8 + limit)), nil),
        ]
        for c in cases {
            let headers = c.type.map { [HTTPHeader("Content-Type", $0)] } ?? []
            let r = expectResponse(roundTrip(engine, HTTPRequest(method: c.method, url: server.baseURL + "/x", headers: headers, body: c.body)))
            XCTAssertEqual(r?.body, c.body.storage.copyBytes(c.body.range), "\(c.method) \(c.body.count) bytes came back")
        }
        let seen = server.requests
        XCTAssertEqual(seen.map(\.method), cases.map(\.method))
        for (req, c) in zip(seen, cases) {
            let what = "\(c.method) of \(c.body.count) bytes"
            XCTAssertEqual(req.body, c.body.storage.copyBytes(c.body.range), what)
            XCTAssertEqual(req.header("Content-Length"), String(c.body.count), what)
            XCTAssertEqual(req.header("Content-Type"), c.type, what)
            XCTAssertEqual(req.headers.filter { $0.0.lowercased() == "content-type" }.count, c.type == nil ? 0 : 1, what)
            XCTAssertNil(req.header("Expect"), what)
            XCTAssertNil(req.header("Transfer-Encoding"), what)
        }
        XCTAssertEqual(EasyHandle.inlines(limit, HTTPRequest(method: "POST", url: "http://127.0.0.1:9/")),
                       EngineLevers.current.inlineBodies, "inline up to the limit, when the lever is on")
        XCTAssertFalse(EasyHandle.inlines(limit + 1, HTTPRequest(method: "POST", url: "http://127.0.0.1:9/")))
        XCTAssertFalse(EasyHandle.inlines(0, HTTPRequest(method: "POST", url: "http://127.0.0.1:9/")))
        var cut = HTTPRequest(method: "POST", url: "http://127.0.0.1:9/", body: json)
        cut.abortUploadAfterBytes = 3
        XCTAssertFalse(EasyHandle.inlines(json.count, cut), "a cut upload needs the callback")
    }

    func testReusedHandleCarriesNothingOverBetweenMethods() throws {
        let server = try RawHTTPServer { req in .http(200, body: req.method == "HEAD" ? [] : Array(req.method.utf8)) }
        defer { server.stop() }
        let engine = try HTTPEngine()
        defer { engine.shutdown() }
        let body = HTTPBody(bytes: Array("payload".utf8))
        let sequence: [(String, HTTPBody?, [HTTPHeader])] = [
            ("PUT", body, [HTTPHeader("X-Only-First", "1")]), ("GET", nil, []), ("HEAD", nil, []),
            ("POST", body, []), ("DELETE", nil, []), ("GET", nil, []),
        ]
        for (method, b, headers) in sequence {
            let r = expectResponse(roundTrip(engine, HTTPRequest(method: method, url: server.baseURL + "/m", headers: headers, body: b)))
            XCTAssertEqual(r?.status, 200, method)
        }
        let seen = server.requests
        XCTAssertEqual(seen.map(\.method), sequence.map(\.0))
        XCTAssertEqual(seen.map(\.body), [Array("payload".utf8), [], [], Array("payload".utf8), [], []])
        for req in seen.dropFirst() {
            XCTAssertNil(req.header("X-Only-First"), "\(req.method) inherited a header")
        }
        for req in seen where req.method == "GET" || req.method == "HEAD" || req.method == "DELETE" {
            XCTAssertNil(req.header("Content-Length"), "\(req.method) inherited the upload's length")
        }
    }

    func testKeepAliveReusesOneConnectionAcrossSequentialRequests() throws {
        let server = try RawHTTPServer { _ in .http(204) }
        defer { server.stop() }
        let engine = try HTTPEngine()
        defer { engine.shutdown() }
        var connects: [Int64] = []
        for _ in 0..<5 {
            let response = expectResponse(roundTrip(engine, HTTPRequest(method: "GET", url: server.baseURL + "/")))
            XCTAssertEqual(response?.status, 204)
            connects.append(response?.timings.connectMicros ?? -1)
        }
        XCTAssertGreaterThan(connects[0], 0)
        XCTAssertEqual(Array(connects.dropFirst()), [0, 0, 0, 0], "later requests reuse the connection")
    }

    func testEngineWithSeveralIOThreadsServesEveryRequest() throws {
        let server = try RawHTTPServer { req in .http(200, body: Array(req.path.utf8)) }
        defer { server.stop() }
        var config = HTTPEngine.Configuration()
        config.ioThreads = 3
        let engine = try HTTPEngine(configuration: config)
        defer { engine.shutdown() }
        for i in 0..<9 {
            let body = expectResponse(roundTrip(engine, HTTPRequest(method: "GET", url: server.baseURL + "/\(i)")))?.body
            XCTAssertEqual(body, Array("/\(i)".utf8))
        }
    }

    func testConfigurationIsValidated() {
        var config = HTTPEngine.Configuration()
        config.ioThreads = 0
        XCTAssertThrowsError(try HTTPEngine(configuration: config)) { error in
            XCTAssertTrue("\(error)".contains("ioThreads"), "\(error)")
        }
        config = .init()
        config.maxConnections = -1
        XCTAssertThrowsError(try HTTPEngine(configuration: config))
    }
}
