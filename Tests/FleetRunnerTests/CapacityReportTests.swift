import XCTest
import FleetCore
@testable import FleetRunner

/// What `fleet capacity` writes for its steps: a percentile with no sample behind it is shown as
/// absent (—, an empty CSV cell, no chart point), never as 0 ms.
final class CapacityReportTests: XCTestCase {
    func step(_ i: Int, rate: Double, settled: Int64) -> CapacityStep {
        var s = CapacityStep(index: i, offeredRate: rate, verdict: settled > 0 ? .pass : .fail(limit: "turnaround p99"))
        s.turnaroundSamples = 40; s.turnaroundP50Ms = 2003; s.turnaroundP99Ms = 9735
        s.settlementSamples = settled
        if settled > 0 { s.settlementP50Ms = 7.4; s.settlementP99Ms = 76.8 }
        return s
    }

    func testAStepWithNoSettlementShowsNoneInsteadOfZero() throws {
        var search = CapacitySearch(settings: CapacitySettings())
        search.record(step(1, rate: 2, settled: 12))
        search.record(step(2, rate: 4, settled: 0))
        let profile = try Profile.parse(try JSONValue.parse(#"{"name": "c", "duration_s": 5, "scenarios": [{"name": "s", "model": {"type": "constant-arrival-rate", "rate": 1, "duration_s": 5}, "journeys": {"dailyQuest": 1}}]}"#), file: "c.json")
        let report = CapacityReport(profile: profile, result: search.result(), target: "http://127.0.0.1:1", elapsedS: 60, startedAtMs: 0)
        XCTAssertTrue(CapacityReport.stepLine(search.steps[1]).contains("settlement — (none settled)"))
        XCTAssertTrue(CapacityReport.stepLine(search.steps[0]).contains("settlement p99 77 ms"))
        let rows = report.csv.split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        let header = rows[0]
        let p99 = try XCTUnwrap(header.firstIndex(of: "settlement_p99_ms")), n = try XCTUnwrap(header.firstIndex(of: "settlement_samples"))
        XCTAssertEqual(rows[1][p99], "76.8")
        XCTAssertEqual(rows[2][p99], "", "no settlement measured: an empty cell")
        XCTAssertEqual(rows[2][n], "0")
        let dir = NSTemporaryDirectory() + "capacity-report-\(getpid())-\(MonotonicClock.now())"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let html = try String(contentsOfFile: try report.write(to: dir), encoding: .utf8)
        XCTAssertTrue(html.contains("<td>2003 / 9735</td><td>—</td>"), html)
        XCTAssertFalse(html.contains("0.00 / 0.00"))
    }

    /// A step the host took CPU from says so: the mean steal over its measured windows, in cores,
    /// in the step line (from 0.01 cores) and in a CSV column; a step without steal stays quiet.
    func testHostStealOfAStepIsShownInItsLineAndCSV() throws {
        let judge = StepJudge(settings: CapacitySettings(), cores: 2)
        var windows = (0..<4).map { _ in StepWindow() }
        windows[1].hostStealSeconds = 0.6; windows[2].hostStealSeconds = 0.2
        let stolen = judge.score(index: 1, rate: 2, measured: windows, steady: true, durationS: 4)
        XCTAssertEqual(stolen.hostSteal, 0.8 / (4 * CapacitySettings().windowS), accuracy: 1e-12)
        let quiet = judge.score(index: 2, rate: 4, measured: (0..<4).map { _ in StepWindow() }, steady: true, durationS: 4)
        XCTAssertEqual(quiet.hostSteal, 0)
        XCTAssertTrue(CapacityReport.stepLine(stolen).contains(String(format: "host steal %.2f cores", stolen.hostSteal)),
                      CapacityReport.stepLine(stolen))
        XCTAssertFalse(CapacityReport.stepLine(quiet).contains("host steal"))
        var search = CapacitySearch(settings: CapacitySettings())
        search.record(stolen)
        search.record(quiet)
        let profile = try Profile.parse(try JSONValue.parse(#"{"name": "c", "duration_s": 5, "scenarios": [{"name": "s", "model": {"type": "constant-arrival-rate", "rate": 1, "duration_s": 5}, "journeys": {"dailyQuest": 1}}]}"#), file: "c.json")
        let rows = CapacityReport(profile: profile, result: search.result(), target: "http://127.0.0.1:1", elapsedS: 60, startedAtMs: 0)
            .csv.split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        let col = try XCTUnwrap(rows[0].firstIndex(of: "host_steal_cores"))
        XCTAssertEqual(rows[1].count, rows[0].count, "every row has the column")
        XCTAssertEqual(Double(rows[1][col])!, stolen.hostSteal, accuracy: 1e-4)
        XCTAssertEqual(rows[2][col], "0")
    }
}
