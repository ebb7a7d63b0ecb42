import FleetCore
import FleetTestSupport
import XCTest
@testable import FleetClient
@testable import FleetHTTP

/// The app's retry rules (API.md's error table, issue 16) against a scripted server.
final class ClientRetryTests: XCTestCase {
    private var engine: HTTPEngine!
    override func setUpWithError() throws { engine = try HTTPEngine() }
    override func tearDown() { engine.shutdown() }

    private static let me = "{\"user_id\":\"u1\"}"
    private static let tokens = "{\"access_token\":\"new\",\"refresh_token\":\"r2\"}"

    func test401RefreshesOnceThenRepeatsWithTheNewToken() async throws {
        let server = try ScriptedServer { path, n in
            if path == "/auth/refresh" { return Wire.json(200, Self.tokens) }
            return n == 0 ? Wire.envelope(401, "token_expired", retryable: false) : Wire.json(200, Self.me)
        }
        defer { server.stop() }
        let client = testClient(server.baseURL, engine: engine)
        let c = signedIn()
        var random = SeededRandom(seed: 1)
        let r = await client.me(c, intended: MonotonicClock.now(), random: &random)
        XCTAssertEqual(try r.get()["user_id"]?.string, "u1")
        XCTAssertEqual(server.requests("/auth/refresh").count, 1)
        XCTAssertEqual(server.requests("/me").map { $0.header("Authorization") }, ["Bearer old", "Bearer new"])
        XCTAssertEqual(c.refreshToken, "r2")
    }

    func testStill401AfterTheRefreshIsFatal() async throws {
        let server = try ScriptedServer { path, _ in
            path == "/auth/refresh" ? Wire.json(200, Self.tokens) : Wire.envelope(401, "unauthorized", retryable: false)
        }
        defer { server.stop() }
        let client = testClient(server.baseURL, engine: engine)
        var random = SeededRandom(seed: 1)
        let r = await client.me(signedIn(), intended: MonotonicClock.now(), random: &random)
        guard case let .failure(e) = r else { return XCTFail("expected 401") }
        XCTAssertEqual(e.status, 401)
        XCTAssertEqual(server.requests("/me").count, 2)
        XCTAssertEqual(server.requests("/auth/refresh").count, 1)
    }

    func test429WaitsRetryAfterSecondsAndHTTPDate() async throws {
        for form in ["seconds", "date"] {
            // An HTTP date has whole-second resolution: 3 s from now leaves more than 2 s.
            let retryAfter = form == "seconds" ? "2" : Self.httpDate(secondsFromNow: 3)
            let server = try ScriptedServer { _, n in
                n == 0 ? Wire.envelope(429, "rate_limited", retryable: true, headers: [("Retry-After", retryAfter)])
                       : Wire.json(200, Self.me)
            }
            defer { server.stop() }
            let client = testClient(server.baseURL, engine: engine)
            var random = SeededRandom(seed: 1)
            let start = MonotonicClock.now()
            let r = await client.me(signedIn(), intended: start, random: &random)
            let waited = Double(MonotonicClock.now() - start) / 1e9
            XCTAssertNoThrow(try r.get(), retryAfter)
            XCTAssertEqual(server.requests("/me").count, 2, retryAfter)
            XCTAssertGreaterThanOrEqual(waited, 1.95, retryAfter)
            XCTAssertLessThan(waited, 4, retryAfter)
        }
    }

    func testRetryAfterParsesBothForms() {
        let now: Int64 = 784_111_777_000  // Sun, 06 Nov 1994 08:49:37 GMT
        XCTAssertEqual(RetryAfter.seconds("120", nowMillis: now), 120)
        XCTAssertEqual(RetryAfter.seconds("Sun, 06 Nov 1994 08:50:07 GMT", nowMillis: now), 30)
        XCTAssertEqual(RetryAfter.seconds("Sun, 06 Nov 1994 08:00:00 GMT", nowMillis: now), 0)
        XCTAssertNil(RetryAfter.seconds("soon", nowMillis: now))
        XCTAssertNil(RetryAfter.seconds("-5", nowMillis: now))
    }

    func test5xxRepeatsOnlyWhenRetryableOrWithoutEnvelope() async throws {
        let cases: [(RawHTTPServer.Reply, Int)] = [
            (Wire.envelope(503, "unavailable", retryable: true), 2),
            (Wire.envelope(500, "internal", retryable: false), 1),
            (.http(502, body: Array("<html>bad gateway</html>".utf8)), 2),
        ]
        for (first, expected) in cases {
            let server = try ScriptedServer { _, n in n == 0 ? first : Wire.json(200, Self.me) }
            defer { server.stop() }
            let client = testClient(server.baseURL, engine: engine)
            var random = SeededRandom(seed: 1)
            _ = await client.me(signedIn(), intended: MonotonicClock.now(), random: &random)
            XCTAssertEqual(server.requests("/me").count, expected, "\(first)")
        }
    }

    func testNoEnvelope5xxOfACallNotSafeToRepeatIsNotRepeated() async throws {
        let server = try ScriptedServer { _, _ in .http(502) }
        defer { server.stop() }
        let client = testClient(server.baseURL, engine: engine)
        var random = SeededRandom(seed: 1)
        let r = await client.call(.postFeedback, path: "/assessments/a1/feedback", body: ["x": 1],
                                  credentials: signedIn(), intended: MonotonicClock.now(), random: &random)
        XCTAssertEqual(r.failureCode, "internal")
        XCTAssertEqual(server.requests("/assessments").count, 1)
    }

    func test409StagePreconditionIsReturnedForTheRefetchNotRepeated() async throws {
        let server = try ScriptedServer { _, _ in Wire.envelope(409, "stage_precondition", retryable: false) }
        defer { server.stop() }
        let client = testClient(server.baseURL, engine: engine)
        var random = SeededRandom(seed: 1)
        let r = await client.complete(session: "s1", signedIn(), intended: MonotonicClock.now(), random: &random)
        XCTAssertEqual(r.failureCode, "stage_precondition")
        XCTAssertEqual(server.requests("/sessions").count, 1)
    }

    func testPatienceStopsRepeats() async throws {
        // A retryable 503 asking for 1 s, from a user whose patience is 0.3 s: no repeat.
        let server = try ScriptedServer { _, _ in Wire.envelope(503, "unavailable", retryable: true, headers: [("Retry-After", "1")]) }
        defer { server.stop() }
        let client = testClient(server.baseURL, engine: engine, patience: 0.3)
        var random = SeededRandom(seed: 7)
        _ = await client.me(signedIn(), intended: MonotonicClock.now(), random: &random)
        XCTAssertEqual(server.requests("/me").count, 1)
        XCTAssertEqual(client.recorder.snapshot(.init(runId: "t", profile: "p", seed: 1, target: "x", startedAt: "n"))
            .counters["retries_out_of_patience"], 1)
    }

    func testBackoffJitterComesFromTheUsersGenerator() async throws {
        let server = try ScriptedServer { _, n in n < 2 ? .http(503) : Wire.json(200, Self.me) }
        defer { server.stop() }
        let client = testClient(server.baseURL, engine: engine)
        var random = SeededRandom(seed: 99)
        _ = await client.me(signedIn(), intended: MonotonicClock.now(), random: &random)
        // Two repeats drew two numbers from the user's stream, and nothing else did.
        var expected = SeededRandom(seed: 99)
        _ = expected.unit(); _ = expected.unit()
        XCTAssertEqual(random.next(), expected.next())
    }

    static func httpDate(secondsFromNow s: Int64) -> String {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "GMT")
        f.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return f.string(from: Date(timeIntervalSince1970: Double(WallClock.nowMillis() / 1000 + s)))
    }
}

extension Result where Failure == APIError {
    var failureCode: String? { if case let .failure(e) = self { return e.code }; return nil }
}
