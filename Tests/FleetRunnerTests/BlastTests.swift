import FleetCLI
import FleetCore
import FleetStack
import FleetTestSupport
import Synchronization
import XCTest
@testable import FleetRunner

/// `fleet blast` against the embedded reference stack's /healthz over loopback.
final class BlastTests: XCTestCase {
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

    func testClosedLoopBlastCountsRequestsAndOrdersPercentiles() throws {
        var options = BlastOptions(url: baseURL + "/healthz")
        options.connections = 8
        options.durationSeconds = 1
        let report = try Blast.run(options)
        XCTAssertGreaterThan(report.requests, 100, "a loopback /healthz answers far more than 100 times a second")
        XCTAssertEqual(report.errorCount, 0)
        XCTAssertEqual(report.non2xx, 0)
        XCTAssertEqual(report.latencyMicros.count, report.requests + report.errorCount, "every completed request is in the histogram")
        XCTAssertEqual(report.elapsedSeconds, 1, accuracy: 0.3)
        let p = report.percentiles.map(\.micros)
        XCTAssertGreaterThan(p[0], 0)
        XCTAssertEqual(p, p.sorted(), "p50 ≤ p90 ≤ p99 ≤ p99.9 ≤ max")
        XCTAssertGreaterThan(report.cpuSeconds, 0)
        let text = report.render()
        XCTAssertTrue(text.contains("\(report.requests) requests in "), text)
        XCTAssertTrue(text.contains("Requests/sec: "), text)
        XCTAssertTrue(text.contains("99.9%"), text)
    }

    func testRateLimitedBlastSendsAboutTheRateAndCorrectsFromIntendedTimes() throws {
        var options = BlastOptions(url: baseURL + "/healthz")
        options.connections = 4
        options.durationSeconds = 1.5
        options.rate = 200
        let report = try Blast.run(options)
        // 200/s for 1.5 s is 300 sends (the first of each connection staggered within 20 ms); a
        // loaded CI machine may finish a few late, but a schedule can never send more.
        XCTAssertGreaterThanOrEqual(report.requests, 240)
        XCTAssertLessThanOrEqual(report.requests, 304)
        XCTAssertEqual(report.errorCount, 0)
        XCTAssertTrue(report.render().contains("corrected"))
    }

    func testRateCorrectionChargesAStalledServerToEveryWaitingRequest() throws {
        // One connection at 100/s against a server that answers after 50 ms: the schedule slips,
        // and corrected latency (from intended send) must exceed the server's own delay by far.
        let slow = try RawHTTPServer { _ in
            Thread.sleep(forTimeInterval: 0.05)  // the server's own answer time, not a wait
            return .http(200, body: Array("ok".utf8))
        }
        defer { slow.stop() }
        var options = BlastOptions(url: slow.baseURL + "/slow")
        options.connections = 1
        options.durationSeconds = 1
        options.rate = 100
        let report = try Blast.run(options)
        XCTAssertGreaterThan(report.requests, 5)
        XCTAssertLessThan(report.requests, 30, "one connection cannot do 100/s at 50 ms each")
        // Uncorrected latency would stay near 50 ms; the corrected p99 includes the backlog.
        XCTAssertGreaterThan(report.latencyMicros.value(atPercentile: 99), 300_000)
    }

    func testClosedPortCountsConnectErrorsNotRequestsAndTheCommandFails() throws {
        let port = freeLoopbackPort()
        var options = BlastOptions(url: "http://127.0.0.1:\(port)/")
        options.connections = 2
        options.durationSeconds = 0.3
        let report = try Blast.run(options)
        XCTAssertEqual(report.requests, 0)
        XCTAssertGreaterThan(report.errors[.connect] ?? 0, 0)
        XCTAssertTrue(report.render().contains("Errors: connect"), report.render())
        let io = CommandIO(out: { _ in }, err: { _ in })
        XCTAssertEqual(FleetCLI.run(["blast", options.url, "-c", "1", "-d", "0.2"], io: io), 1, "no response at all is a failure")
    }

    func testNonLoopbackAndBadOptionsAreRefusedWithTheFlagNamed() {
        XCTAssertThrowsError(try BlastOptions(url: "http://example.com/").validate()) { error in
            XCTAssertTrue("\(error)".contains("not loopback"), "\(error)")
        }
        XCTAssertThrowsError(try BlastOptions(url: "ftp://127.0.0.1/").validate())
        var bad = BlastOptions(url: "http://127.0.0.1:1/")
        bad.connections = 0
        XCTAssertThrowsError(try bad.validate()) { XCTAssertTrue("\($0)".contains("-c 0"), "\($0)") }
        bad = BlastOptions(url: "http://127.0.0.1:1/")
        bad.rate = -5
        XCTAssertThrowsError(try bad.validate()) { XCTAssertTrue("\($0)".contains("-R"), "\($0)") }
        XCTAssertNoThrow(try BlastOptions(url: "http://[::1]:8080/x").validate())
        XCTAssertNoThrow(try BlastOptions(url: "http://localhost:8080/").validate())
        XCTAssertNoThrow(try BlastOptions(url: "http://127.0.0.2/").validate())
    }

    func testBlastCommandPrintsTheWrkStyleReportAndRejectsBadInputWithExit2() {
        let out = Box(""), err = Box("")
        let io = CommandIO(out: { s in out.mutate { $0 += s + "\n" } }, err: { s in err.mutate { $0 += s + "\n" } })
        let code = FleetCLI.run(["blast", baseURL + "/healthz", "-c", "2", "-d", "0.5"], io: io)
        XCTAssertEqual(code, 0, err.value)
        XCTAssertTrue(out.value.contains("requests in"), out.value)
        XCTAssertTrue(out.value.contains("Requests/sec:"), out.value)

        XCTAssertEqual(FleetCLI.run(["blast", "http://10.1.2.3/"], io: io), 2)
        XCTAssertTrue(err.value.contains("not loopback"), err.value)
        XCTAssertEqual(FleetCLI.run(["blast", baseURL, "-c", "many"], io: io), 2)
        XCTAssertEqual(FleetCLI.run(["blast"], io: io), 2)
    }

    // MARK: --replay --as-recorded

    private func writeRecording(_ lines: [String]) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("fleet-asrec-\(UUID().uuidString).jsonl").path
        try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    func testAsRecordedReplayKeepsEachChainsOrderAndGapsAndEndsWithTheRecording() throws {
        let seen = Mutex<[String: UInt64]>([:])
        let server = try RawHTTPServer { r in
            seen.withLock { $0[r.path] = MonotonicClock.now() }
            return .http(200, body: Array("ok".utf8))
        }
        defer { server.stop() }
        let u = server.baseURL
        // Chain 1: a1, then a2 0.4 s after a1's answer (a pause), then a3 0.5 s after a2's answer
        // spent working (no pause: sent at once). Chain 2 starts 0.3 s in: b1, then b2 0.2 s after
        // b1 was sent (recorded before b1's answer came; a recording of before `waited`). The bounds
        // below leave 0.1 s for a send's own way to the server (a new connection on a loaded machine).
        let path = try writeRecording([
            #"{"method": "GET", "url": "\#(u)/a1", "chain": 1, "after": "start", "gap": 0}"#,
            #"{"method": "GET", "url": "\#(u)/b1", "chain": 2, "after": "start", "gap": 0.3}"#,
            #"{"method": "GET", "url": "\#(u)/a2", "chain": 1, "after": "answer", "gap": 0.4, "waited": true}"#,
            #"{"method": "GET", "url": "\#(u)/b2", "chain": 2, "after": "send", "gap": 0.2}"#,
            #"{"method": "GET", "url": "\#(u)/a3", "chain": 1, "after": "answer", "gap": 0.5, "waited": false}"#,
        ])
        defer { try? FileManager.default.removeItem(atPath: path) }
        var options = BlastOptions(url: u + "/")
        options.replayFile = path
        options.asRecorded = true
        options.connections = 4
        options.durationSeconds = 10
        let report = try Blast.run(options)
        XCTAssertEqual(report.requests, 5, "each recorded request once")
        XCTAssertLessThan(report.elapsedSeconds, 3, "the replay ends when its recording runs out, not at -d")
        XCTAssertTrue(report.render().contains("as recorded, latency from intended send"), report.render())
        let t = seen.withLock { $0 }
        let a1 = try XCTUnwrap(t["/a1"]), a2 = try XCTUnwrap(t["/a2"]), b1 = try XCTUnwrap(t["/b1"]), b2 = try XCTUnwrap(t["/b2"])
        func seconds(_ from: UInt64, _ to: UInt64) -> Double { Double(Int64(bitPattern: to &- from)) / 1e9 }
        XCTAssertGreaterThanOrEqual(seconds(a1, b1), 0.2, "chain 2 keeps its offset from the start")
        XCTAssertGreaterThanOrEqual(seconds(a1, a2), 0.39, "a2 waits its gap after a1's answer")
        XCTAssertLessThan(seconds(a1, a2), 1.5)
        XCTAssertGreaterThanOrEqual(seconds(b1, b2), 0.1, "b2 waits its gap after b1's send")
        XCTAssertLessThan(seconds(b1, b2), 1.0)
        let a3 = try XCTUnwrap(t["/a3"])
        XCTAssertLessThan(seconds(a2, a3), 0.3, "a gap the sender spent working is not slept through")
    }

    func testAsRecordedNeedsATimedReplayAndNoRate() throws {
        var o = BlastOptions(url: "http://127.0.0.1:1/")
        o.asRecorded = true
        XCTAssertThrowsError(try o.validate()) { XCTAssertTrue("\($0)".contains("needs --replay"), "\($0)") }
        o.replayFile = "/tmp/x.jsonl"
        o.rate = 10
        XCTAssertThrowsError(try o.validate()) { XCTAssertTrue("\($0)".contains("-R"), "\($0)") }
        // A recording without timing (made before it was written) is refused, naming the line.
        let path = try writeRecording([#"{"method": "GET", "url": "http://127.0.0.1:1/x"}"#])
        defer { try? FileManager.default.removeItem(atPath: path) }
        o.rate = nil
        o.replayFile = path
        XCTAssertThrowsError(try Blast.run(o)) { XCTAssertTrue("\($0)".contains("line 1 has no chain"), "\($0)") }
        o.asRecorded = false
        o.durationSeconds = 0.2
        XCTAssertNoThrow(try Blast.run(o), "replayed without its timing, it needs none")
    }
}
