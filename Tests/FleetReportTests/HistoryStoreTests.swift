import FleetMetrics
import Foundation
import XCTest
@testable import FleetReport

final class HistoryStoreTests: XCTestCase {
    private var dir = ""

    override func setUp() {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("fleet-history-\(UUID().uuidString)").path
    }

    override func tearDown() { try? FileManager.default.removeItem(atPath: dir) }

    private func run(_ id: String, profile: String, startedAt: String, seed: UInt64) -> RunResults {
        var r = FixtureFeed.results(seed: seed, slowdown: Double(seed % 3 + 1) * 0.5, stall: false, seconds: 3)
        r.meta.runId = id
        r.meta.profile = profile
        r.meta.startedAt = startedAt
        return r
    }

    func testRunsAccumulateAndListOldestFirstByProfile() throws {
        let path = dir + "/reports/history.sqlite"
        let a = run("r1", profile: "nightly", startedAt: "2026-11-27T02:00:00Z", seed: 1)
        let b = run("r2", profile: "smoke", startedAt: "2026-11-28T02:00:00Z", seed: 2)
        let c = run("r3", profile: "nightly", startedAt: "2026-11-29T02:00:00Z", seed: UInt64.max)
        do {
            let store = try HistoryStore(path: path)
            try store.append(a); try store.append(b); try store.append(c)
        }
        // A new connection sees what the first one wrote (it is on disk, not in memory).
        let store = try HistoryStore(path: path)
        let nightly = try store.list(profile: "nightly")
        XCTAssertEqual(nightly.map(\.runId), ["r1", "r3"])
        XCTAssertEqual(nightly[1], HistoryRow(results: c))
        XCTAssertEqual(nightly[1].seed, UInt64.max, "seeds above Int64.max survive")
        XCTAssertEqual(try store.list().map(\.runId), ["r1", "r2", "r3"])
        XCTAssertEqual(try store.list(limit: 2).map(\.runId), ["r2", "r3"], "the newest runs, oldest first")

        let t = try XCTUnwrap(try store.metric("assessment_turnaround", run: "r3"))
        let h = c.metric("assessment_turnaround")!.corrected
        XCTAssertEqual(t.count, h.count)
        XCTAssertEqual(t.p99Ms, Double(h.value(atPercentile: 99)) / 1000, accuracy: 1e-9)
        XCTAssertNotNil(try store.metric("http:GET /home", run: "r1"))
    }

    func testAppendingARunAgainReplacesIt() throws {
        let store = try HistoryStore(path: dir + "/h.sqlite")
        var a = run("same", profile: "smoke", startedAt: "2026-11-29T00:00:00Z", seed: 4)
        try store.append(a)
        a.meta.gitRevision = "def5678"
        try store.append(a)
        let rows = try store.list(profile: "smoke")
        XCTAssertEqual(rows.count, 1)
        XCTAssertEqual(rows[0].gitRevision, "def5678")
    }

    func testAnUnopenableHistoryIsNamed() {
        XCTAssertThrowsError(try HistoryStore(path: "/proc/fleet/history.sqlite")) { error in
            XCTAssertTrue("\(error)".contains("/proc/fleet"), "\(error)")
        }
    }
}

final class ReportPublisherTests: XCTestCase {
    func testPublishRecordsTheRunAndDrawsItsTrend() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fleet-publish-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var first = FixtureFeed.results(seed: 5, stall: false, seconds: 3)
        first.meta.runId = "first"
        first.meta.startedAt = "2026-11-28T00:00:00Z"
        var second = FixtureFeed.results(seed: 6, stall: false, seconds: 3)
        second.meta.runId = "second"
        _ = try ReportPublisher.publish(first, to: dir + "/first", historyPath: dir + "/history.sqlite")
        let out = try ReportPublisher.publish(second, to: dir + "/second", historyPath: dir + "/history.sqlite")
        XCTAssertEqual(out.warnings, [])
        let html = try String(contentsOfFile: out.index, encoding: .utf8)
        XCTAssertTrue(html.contains("Trend over the last 2 runs"))
        XCTAssertTrue(html.contains("<code>first</code>") && html.contains("<code>second</code> (this run)"))
        XCTAssertEqual(try HistoryStore(path: dir + "/history.sqlite").list().map(\.runId), ["first", "second"])
    }

    func testABrokenHistoryDoesNotCostTheReport() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fleet-publish-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let out = try ReportPublisher.publish(FixtureFeed.results(seed: 7, seconds: 2), to: dir + "/run",
                                              historyPath: "/proc/no-such/history.sqlite")
        XCTAssertTrue(FileManager.default.fileExists(atPath: out.index))
        XCTAssertEqual(out.warnings.count, 1)
        XCTAssertTrue(out.warnings[0].contains("/proc/no-such"), out.warnings[0])
    }

    func testHistoryTableAlignsColumnsAndMarksBehindRuns() {
        var behind = HistoryRow(results: FixtureFeed.results(seed: 1, seconds: 14))
        behind.runId = "a-much-longer-run-id"
        let calm = HistoryRow(results: FixtureFeed.results(seed: 2, stall: false, seconds: 3))
        let lines = HistoryTable.render([behind, calm]).split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 3)
        XCTAssertTrue(lines[0].hasPrefix("started"))
        XCTAssertTrue(lines[1].contains("failed (generator behind)"), lines[1])
        XCTAssertFalse(lines[2].contains("generator behind"))
        // Every column is padded and the last is right-aligned, so all lines end in the same column.
        XCTAssertEqual(Set(lines.map(\.count)).count, 1, lines.joined(separator: "\n"))
        XCTAssertEqual(lines[1].range(of: "a-much-longer-run-id")?.lowerBound.utf16Offset(in: lines[1]),
                       lines[0].range(of: "run")?.lowerBound.utf16Offset(in: lines[0]))
        XCTAssertTrue(lines[1].hasSuffix(" %") && lines[2].hasSuffix(" %"))
    }
}
