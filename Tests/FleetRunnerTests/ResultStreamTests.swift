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

    typealias E2E = EndToEndTests
}
