import FleetMetrics
import XCTest
@testable import FleetReport

/// The one publisher as `fleet run`, `fleet report` and `fleet merge` use it.
final class ReportPublisherHistoryTests: XCTestCase {
    private func tempDir() throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fleet-pubhist-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    func testTheLatestEarlierRunIsLookedUpBeforeThisOneIsRecorded() throws {
        let dir = try tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let historyPath = dir + "/nested/history.sqlite"
        var runs: [RunResults] = []
        for (i, id) in ["one", "two"].enumerated() {
            var r = FixtureFeed.results(seed: UInt64(20 + i), stall: false, seconds: 2)
            r.meta.runId = id
            r.meta.startedAt = "2026-11-2\(i + 1)T00:00:00Z"
            runs.append(r)
        }
        var seen: [ReportPublisher.HistoryOutcome] = []
        for r in runs {
            let use = ReportPublisher.HistoryUse(path: historyPath, resultsPath: dir + "/\(r.meta.runId)/results.json", lookUpLatest: true)
            _ = try ReportPublisher.publish(r, to: dir + "/" + r.meta.runId, history: use) { outcome in
                seen.append(outcome)
                return ReportPublisher.BaselineChoice()
            }
        }
        XCTAssertEqual(seen.map(\.lookedUp), [true, true])
        XCTAssertNil(seen[0].latest, "the first run has no earlier one (and is not its own)")
        XCTAssertEqual(seen[1].latest?.runId, "one")
        XCTAssertEqual(seen[1].latest?.path, dir + "/one/results.json")
        XCTAssertEqual(seen[1].trend.map(\.runId), ["one", "two"], "the trend includes the run just recorded")
        XCTAssertNil(seen[1].problem)
    }

    func testReadOnlyUseLeavesAMissingHistoryAloneAndReadsAnExistingOne() throws {
        let dir = try tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let historyPath = dir + "/history.sqlite"
        var r = FixtureFeed.results(seed: 31, stall: false, seconds: 2)
        r.meta.runId = "solo"
        let readOnly = ReportPublisher.HistoryUse(path: historyPath, record: false, onlyIfPresent: true)
        let first = try ReportPublisher.publish(r, to: dir + "/a", history: readOnly) { _ in ReportPublisher.BaselineChoice() }
        XCTAssertFalse(FileManager.default.fileExists(atPath: historyPath), "no history is created without --record")
        XCTAssertEqual(first.history.trend.count, 0)
        XCTAssertTrue(FileManager.default.fileExists(atPath: first.index))

        _ = try ReportPublisher.publish(r, to: dir + "/b", history: ReportPublisher.HistoryUse(path: historyPath, onlyIfPresent: true)) { _ in
            ReportPublisher.BaselineChoice()
        }
        let again = try ReportPublisher.publish(r, to: dir + "/c", history: readOnly) { _ in ReportPublisher.BaselineChoice() }
        XCTAssertEqual(again.history.trend.map(\.runId), ["solo"], "an existing history is read, not written")
    }

    func testAnUnusableHistoryIsReportedAndTheBaselineStillChosen() throws {
        let dir = try tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let r = FixtureFeed.results(seed: 32, stall: false, seconds: 2)
        var problem: String?
        let out = try ReportPublisher.publish(r, to: dir + "/run", history: ReportPublisher.HistoryUse(path: "/proc/no-such/h.sqlite")) {
            problem = $0.problem.map { "\($0)" }
            return ReportPublisher.BaselineChoice(baseline: r)
        }
        XCTAssertTrue(problem?.contains("/proc/no-such") ?? false, problem ?? "no problem reported")
        XCTAssertTrue(try String(contentsOfFile: out.index, encoding: .utf8).contains("baseline"))
    }
}
