import Foundation
import FleetMetrics
import FleetRunner
import XCTest

/// The stream's lines: totals each time, each closed window once; recovery puts them together.
final class ResultStreamTests: XCTestCase {
    private func snapshot(windows: Int, requests: Int64) -> RunResults {
        var r = RunResults(meta: RunMetadata(runId: "r", profile: "p", seed: 1, target: "t", startedAt: "s"))
        var m = MetricResult(name: "settlement")
        var h = Histogram()
        for _ in 0..<requests { h.record(1000) }
        m.corrected = h
        m.windows = (0..<windows).map { MetricWindow(index: $0, corrected: h) }
        r.metrics = [m]
        r.health = (0..<windows).map { HealthSample(window: $0, activeUsers: 1, inFlight: 0, cpuSeconds: 0, rssBytes: 1) }
        r.counters = ["requests": requests]
        return r
    }

    func testEachWindowIsStreamedOnceAndATornLineIsSkipped() throws {
        let dir = try E2E.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let stream = try ResultStream(directory: dir.path)
        // Window 3 is open at the first append, window 5 at the second.
        XCTAssertTrue(stream.append(snapshot(windows: 4, requests: 10), through: 2))
        XCTAssertTrue(stream.append(snapshot(windows: 6, requests: 20), through: 4))
        let lines = try String(contentsOfFile: stream.path, encoding: .utf8).split(separator: "\n")
        XCTAssertEqual(lines.count, 2)
        XCTAssertFalse(lines[1].contains("\"index\":0"), "a window already streamed is not written again")
        // A kill in the middle of a third line.
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: stream.path))
        handle.seekToEndOfFile()
        handle.write(Data("{\"through\":5,\"totals\":{\"meta".utf8))
        try handle.close()
        let r = try ResultStream.recover(directory: dir.path)
        XCTAssertEqual(r.counters["requests"], 20)
        XCTAssertEqual(r.metrics.first?.windows.map(\.index), [0, 1, 2, 3, 4])
        XCTAssertEqual(r.health.map(\.window), [0, 1, 2, 3, 4])
    }

    /// Lines cut from a recorder (windows only, breakdowns now and then) recover to the totals
    /// the recorder's own snapshot gives: its shards' whole-run histograms, a different path.
    func testStreamSlicesRecoverTheRecordersTotals() throws {
        let dir = try E2E.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let stream = try ResultStream(directory: dir.path)
        let second: UInt64 = 1_000_000_000, start: UInt64 = 10 * second
        let recorder = Recorder(startNanos: start, windowNanos: second)
        let meta = RunMetadata(runId: "r", profile: "p", seed: 1, target: "t", startedAt: "s")
        for w in 0..<6 {
            for i in 0..<(20 * (w + 1)) {
                let t = start + UInt64(w) * second + UInt64(i) * 1_000_000
                recorder.recordLatency(.settlement, intended: t, actual: t + 1000, end: t + UInt64(1000 + 37_000 * i), failed: i % 7 == 0)
                recorder.recordRequest("GET /home", intended: t, actual: t, end: t + UInt64(500_000 + 9_000 * i), status: i % 5 == 0 ? 503 : 200,
                                       errorCode: nil, message: nil,
                                       breakdown: RequestBreakdown(dnsMicros: 0, connectMicros: Int64(w), firstByteMicros: 400, totalMicros: 500))
            }
            // Window w closed: stream through it, as the run's monitor does one window late.
            let due = stream.breakdownsDue
            XCTAssertTrue(stream.append(recorder.streamSlice(meta, after: stream.streamedThrough, through: w, breakdowns: due),
                                        through: w, fromWindows: true, breakdowns: due))
        }
        let lines = try String(contentsOfFile: stream.path, encoding: .utf8).split(separator: "\n")
        XCTAssertEqual(lines.count, 6)
        XCTAssertFalse(lines[3].contains("\"index\":0"), "a window already streamed is not written again")
        let whole = recorder.snapshot(meta)
        let r = try ResultStream.recover(directory: dir.path)
        let settled = try XCTUnwrap(r.metric(.settlement)), expected = try XCTUnwrap(whole.metric(.settlement))
        XCTAssertEqual(settled.corrected.count, 420)
        XCTAssertEqual(settled.corrected, expected.corrected)
        XCTAssertEqual(settled.uncorrected, expected.uncorrected)
        XCTAssertEqual(settled.errors, expected.errors)
        XCTAssertEqual(settled.windows.map(\.index), [0, 1, 2, 3, 4, 5])
        let home = try XCTUnwrap(r.endpoints.first { $0.name == "GET /home" })
        let wholeHome = try XCTUnwrap(whole.endpoints.first { $0.name == "GET /home" })
        XCTAssertEqual(home.latency.corrected, wholeHome.latency.corrected)
        XCTAssertEqual(home.statuses, wholeHome.statuses)
        // Breakdowns come from the first line (the only one due in six): its windows' requests only.
        XCTAssertEqual(home.connect.count, 20)
        XCTAssertEqual(wholeHome.connect.count, 420)
    }

    typealias E2E = EndToEndTests
}
