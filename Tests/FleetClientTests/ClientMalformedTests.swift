import FleetCore
import FleetTestSupport
import XCTest
@testable import FleetClient
@testable import FleetHTTP
import FleetMetrics
import FleetReport

/// Each kind of unusable answer is a counted error of its kind — never a success — and a call
/// safe to repeat repeats it, while one that is not safe to repeat does not.
final class ClientMalformedTests: XCTestCase {
    private var engine: HTTPEngine!
    override func setUpWithError() throws {
        var config = HTTPEngine.Configuration()
        config.maxResponseBytes = 4096
        engine = try HTTPEngine(configuration: config)
    }
    override func tearDown() { engine.shutdown() }

    private static let kinds: [(String, RawHTTPServer.Reply)] = [
        ("bad_json", Wire.json(200, "{\"user_id\": tru")),
        ("bad_utf8", Wire.jsonWithRawString([0x75, 0xC3, 0x28, 0xFF])),
        ("bad_shape", Wire.json(200, "[\"not\", \"an\", \"object\"]")),
        ("unexpected_status", .http(302, headers: [("Location", "/me")])),
        ("unexpected_status", .http(418)),
        ("truncated", .rawThenClose(Array("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{\"user".utf8))),
        ("reset", .rawThenReset(Array("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{\"user".utf8))),
        ("timeout", .silence),
        ("protocol_error", .rawThenClose(Array("SSH-2.0-OpenSSH_9.2p1\r\n".utf8))),
        ("protocol_error", .rawThenClose(Array("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}".utf8))),
        ("protocol_error", .rawThenClose(Array("HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: 2\r\n\r\n{}".utf8))),
        ("body_too_large", .http(200, body: Array(("{\"user_id\":\"" + String(repeating: "a", count: 10_000) + "\"}").utf8))),
        ("header_too_large", .raw(Array("HTTP/1.1 200 OK\r\nX-Big: \(String(repeating: "b", count: 300_000))\r\nContent-Length: 2\r\n\r\n{}".utf8))),
    ]

    func testEachKindIsItsErrorAndASafeCallRepeatsIt() async throws {
        for (kind, bad) in Self.kinds {
            let server = try ScriptedServer { _, n in n == 0 ? bad : Wire.json(200, "{\"user_id\":\"u1\"}") }
            defer { server.stop() }
            let client = testClient(server.baseURL, engine: engine, timeout: 0.5)
            var random = SeededRandom(seed: 3)
            let r = await client.me(signedIn(), intended: MonotonicClock.now(), random: &random)
            XCTAssertEqual(try? r.get()["user_id"]?.string, "u1", kind)
            XCTAssertEqual(server.requests("/me").count, 2, kind)
            XCTAssertEqual(recordedCodes(client)[kind], 1, "\(kind): \(recordedCodes(client))")
        }
    }

    func testACallNotSafeToRepeatFailsWithTheKindAfterOneRequest() async throws {
        for (kind, bad) in Self.kinds {
            let server = try ScriptedServer { _, _ in bad }
            defer { server.stop() }
            let client = testClient(server.baseURL, engine: engine, timeout: 0.5)
            var random = SeededRandom(seed: 3)
            let r = await client.call(.postFeedback, path: "/assessments/a1/feedback", body: ["x": 1],
                                      credentials: signedIn(), intended: MonotonicClock.now(), random: &random) 
            // A 2xx the client cannot read is as much an error for a POST; bad_shape does not
            // arise for `call`, which takes any JSON.
            let expected = kind == "bad_shape" ? nil : kind
            XCTAssertEqual(r.failureCode, expected, kind)
            XCTAssertEqual(server.requests("/assessments").count, 1, kind)
        }
    }

    func testStrictUTF8IsNotReplaced() throws {
        XCTAssertThrowsError(try JSONValue.parse([0x22, 0xED, 0xA0, 0x80, 0x22])) { e in  // a UTF-8-encoded surrogate
            XCTAssertTrue((e as? JSONParseError)?.isInvalidUTF8 ?? false, "\(e)")
        }
        XCTAssertEqual(try JSONValue.parse(Array("\"añ€😀\"".utf8)).string, "añ€😀")
    }

    func testCorruptUploadTicketIsBadShapeAndIsAskedForAgainUnderTheSameKey() async throws {
        let good = "{\"attempt_id\":\"a1\",\"upload\":{\"url\":\"http://127.0.0.1:1/u/a1?sig=x\",\"method\":\"PUT\",\"headers\":{\"Content-Type\":\"audio/ogg\"}}}"
        let bads: [RawHTTPServer.Reply] = [
            .http(201, headers: [("Content-Type", "application/json")],
                  body: Array("{\"attempt_id\":\"a1\",\"upload\":{\"url\":\"http://127.0.0.1:1/u\",\"method\":\"P".utf8) + [0xEF, 0xBF, 0xBD, 0x28] + Array("UT\"}}".utf8)),
            Wire.json(201, "{\"attempt_id\":\"a1\",\"upload\":{\"url\":\"http://127.0.0.1:1/u\",\"method\":\"DELETE\"}}"),
            Wire.json(201, "{\"attempt_id\":\"a1\",\"upload\":{\"url\":\"file:///etc/passwd\",\"method\":\"PUT\"}}"),
            Wire.json(201, "{\"attempt_id\":\"a1\",\"upload\":{\"url\":\"/relative\",\"method\":\"PUT\"}}"),
            Wire.json(201, "{\"attempt_id\":\"a1\",\"upload\":{\"url\":\"http://h/u\",\"method\":\"PUT\",\"headers\":{\"X-A\":\"v\\r\\nEvil: 1\"}}}"),
            Wire.json(201, "{\"attempt_id\":\"a1\",\"upload\":{\"url\":\"http://h/u\",\"method\":\"PUT\",\"headers\":{\"Bad Name\":\"v\"}}}"),
            Wire.json(201, "{\"attempt_id\":\"a1\",\"upload\":{\"url\":\"http://h/u\",\"method\":\"PUT\",\"headers\":{\"Content-Length\":\"1\"}}}"),
        ]
        for bad in bads {
            let server = try ScriptedServer { _, n in n == 0 ? bad : Wire.json(201, good) }
            defer { server.stop() }
            let client = testClient(server.baseURL, engine: engine)
            var random = SeededRandom(seed: 5)
            let r = await client.createAttempt(session: "s1", round: 1, sha256: "ab", sizeBytes: 10, contentType: "audio/ogg",
                                               durationMs: 1000, key: "k-1", signedIn(), intended: MonotonicClock.now(), random: &random)
            XCTAssertEqual(try? r.get().method, "PUT", "\(bad)")
            let keys = server.requests("/sessions").map { $0.header("Idempotency-Key") }
            XCTAssertEqual(keys, ["k-1", "k-1"], "\(bad)")
            XCTAssertEqual(recordedCodes(client)["bad_shape"], 1, "\(bad)")
        }
    }

    func testUploadRefusesAMethodOrURLItMustNotUseWithoutSendingAnything() async throws {
        let server = try ScriptedServer { _, _ in .http(200) }
        defer { server.stop() }
        let client = testClient(server.baseURL, engine: engine)
        var random = SeededRandom(seed: 5)
        let body = HTTPBody(bytes: [1, 2, 3])
        for (method, url, headers) in [("POST", server.baseURL + "/u", []), ("PUT", "ftp://127.0.0.1/u", []),
                                       ("PUT", server.baseURL + "/u", [HTTPHeader("X", "a\r\nb: c")])] {
            let r = await client.upload(url: url, method: method, headers: headers, body: body,
                                        intended: MonotonicClock.now(), random: &random)
            XCTAssertEqual(r.failureCode, "bad_shape", method + " " + url)
        }
        XCTAssertEqual(server.raw.requests.count, 0)
        let ok = await client.upload(url: server.baseURL + "/u", method: "PUT", headers: [], body: body,
                                     intended: MonotonicClock.now(), random: &random)
        XCTAssertNoThrow(try ok.get())
    }

    func testServerTextIsCleanedAndCut() {
        XCTAssertEqual(ServerText.code("stage_precondition"), "stage_precondition")
        XCTAssertEqual(ServerText.code("<script>alert(1)</script>"), "invalid_code:<script>alert(1)</script>")
        XCTAssertEqual(ServerText.code(String(repeating: "a", count: 5000)).count, "invalid_code:".count + ServerText.maxCode)
        let m = ServerText.message("line1\r\nline2\u{0}" + String(repeating: "x", count: 10_000))
        XCTAssertFalse(m.contains("\n") || m.contains("\r") || m.contains("\u{0}"))
        XCTAssertEqual(m.count, ServerText.maxMessage + 1)
    }
}
