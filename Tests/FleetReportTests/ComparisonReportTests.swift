import FleetMetrics
import FleetStats
import Foundation
import XCTest
@testable import FleetReport

/// The report's baseline section (intervals and verdicts), its trend chart's change points, the
/// `latest` baseline lookup and the JUnit file.
final class ComparisonReportTests: XCTestCase {
    func testBaselineSectionShowsIntervalsAndVerdictsOfASlowerRun() throws {
        let base = FixtureFeed.results(seed: 3, slowdown: 1.0, stall: false, seconds: 30)
        let slow = FixtureFeed.results(seed: 4, slowdown: 1.6, stall: false, seconds: 30)
        let html = ReportWriter.renderHTML(slow, baseline: base)
        let section = String(html[html.range(of: "<section id=\"baseline\">")!.lowerBound...].prefix { _ in true })
        XCTAssertTrue(section.contains("▲ worse"), "60 % slower endpoints must read worse")
        XCTAssertFalse(section.contains("Changes under 0.5 %"), "the percent-change rule is gone")
        // An interval is printed as "low – high" with three decimals, beside its ratio.
        XCTAssertNotNil(section.range(of: #"<td>1\.[0-9]{3}</td><td>1\.[0-9]{3} – [12]\.[0-9]{3}</td>"#, options: .regularExpression),
                        "ratio and interval cells")
        // The headline cards carry the verdict and interval too, not a bare percentage.
        let cardsStart = try XCTUnwrap(html.range(of: "<section id=\"cards\">"))
        let cardsEnd = try XCTUnwrap(html.range(of: "</section>", range: cardsStart.upperBound..<html.endIndex))
        let cards = String(html[cardsStart.lowerBound..<cardsEnd.lowerBound])
        XCTAssertNotNil(cards.range(of: #"title="ratio to the baseline with its 95 % interval">[=▲▼] (same|worse|better) ×[0-9.]+ \[[0-9.]+, [0-9.]+\]"#,
                                    options: .regularExpression), cards)
        XCTAssertFalse(ReportWriter.renderHTML(slow).contains("ratio to the baseline"), "no baseline, no verdicts")
        let calm = ReportWriter.renderHTML(FixtureFeed.results(seed: 5, stall: false, seconds: 30), baseline: base)
        XCTAssertFalse(calm.contains("▲ worse"), "the same feed with another seed is not worse anywhere")
        XCTAssertTrue(calm.contains("<b>No regression</b>"))
    }

    private func rows(step: Double?, count: Int = 30) -> [HistoryRow] {
        (0..<count).map { i in
            // Deterministic ±4 % wobble, then the step.
            let wobble = 1 + 0.04 * sin(Double(i) * 2.3)
            let level = (step != nil && i >= 20) ? 1 + step! : 1
            return HistoryRow(runId: "r\(i)", startedAt: "2026-11-\(String(format: "%02d", i % 28 + 1))T02:00:00Z", profile: "nightly",
                              gitRevision: "abc", seed: 1, target: "embedded", verdict: "passed", durationSeconds: 60,
                              requests: 6000, errorRate: 0.001, journeysCompleted: 100, turnaroundP50Ms: 1200 * wobble * level,
                              turnaroundP99Ms: 4000 * wobble, settlementP50Ms: 30 * wobble, settlementP99Ms: 90 * wobble,
                              generatorBehind: false)
        }
    }

    func testChangePointsOverHistoryAreListedAndMarkedOnTheTrend() throws {
        let stepped = rows(step: 0.15)
        let changes = HistoryChanges.find(stepped)
        XCTAssertEqual(changes.map(\.metric), ["turnaround_p50_ms"])
        XCTAssertEqual(changes.first?.runId, "r20")
        let text = HistoryChanges.render(changes, rows: stepped)
        XCTAssertTrue(text.hasPrefix("run 21 r20 "), text)
        XCTAssertTrue(text.contains("turnaround_p50_ms"), text)

        var current = FixtureFeed.results(seed: 1, stall: false, seconds: 3)
        current.meta.profile = "nightly"
        current.meta.runId = "r29"
        let html = ReportWriter.renderHTML(current, history: stepped)
        XCTAssertTrue(html.contains("<g class=\"mark\"><title>change: turnaround_p50_ms +"), "the trend chart marks the step")
        let flat = ReportWriter.renderHTML(current, history: rows(step: nil))
        XCTAssertFalse(flat.contains("<g class=\"mark\">"))
        XCTAssertTrue(flat.contains("No change points"))
    }

    func testLatestBaselineIsTheNewestRunOfTheProfileWhoseFileExists() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fleet-latest-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let store = try HistoryStore(path: dir + "/history.sqlite")
        XCTAssertNil(try store.latestResults(profile: "nightly"))
        for (i, day) in ["27", "28", "29"].enumerated() {
            var r = FixtureFeed.results(seed: UInt64(i), stall: false, seconds: 2)
            r.meta.runId = "n\(i)"; r.meta.profile = "nightly"; r.meta.startedAt = "2026-11-\(day)T02:00:00Z"
            let path = dir + "/n\(i).json"
            if i < 2 { try r.encodedJSON().write(to: URL(fileURLWithPath: path)) }  // n2's file is gone
            try store.append(r, resultsPath: path)
        }
        var other = FixtureFeed.results(seed: 9, stall: false, seconds: 2)
        other.meta.runId = "s0"; other.meta.profile = "smoke"; other.meta.startedAt = "2026-11-30T02:00:00Z"
        try store.append(other, resultsPath: dir + "/n0.json")
        let latest = try XCTUnwrap(try store.latestResults(profile: "nightly"))
        XCTAssertEqual(latest.runId, "n1")
        XCTAssertEqual(latest.path, dir + "/n1.json")
    }

    func testJUnitHasOneCasePerThresholdAndComparedFigureWithValuesAndEscaping() throws {
        let base = FixtureFeed.results(seed: 3, stall: false, seconds: 30)
        var slow = FixtureFeed.results(seed: 4, slowdown: 1.6, stall: false, seconds: 30)
        slow.meta.thresholds = [
            ThresholdVerdict(metric: "http:GET /home", expression: "p99 < 5", passed: false, observed: 9.5, limit: 5,
                             message: "http:GET /home p99 < 5: 9.5 ms, over by 4.5 ms (90.0 %)"),
            ThresholdVerdict(metric: "http_errors", expression: "rate < 0.5", passed: true, observed: 0.04, limit: 0.5,
                             message: "http_errors rate < 0.5: 0.04"),
        ]
        let c = try Comparer().compare(base: base, new: slow)
        let xml = JUnitReport.render(slow, comparison: c)
        let cases = xml.components(separatedBy: "<testcase ").count - 1
        let figures = c.metrics.reduce(0) { $0 + $1.percentiles.count } + c.rates.count
        XCTAssertEqual(cases, 2 + figures)
        XCTAssertTrue(xml.contains("<testcase name=\"http:GET /home p99 &lt; 5\" classname=\"fleet.thresholds\" time=\"0\"><failure message=\"http:GET /home p99 &lt; 5: 9.5 ms, over by 4.5 ms (90.0 %)\""))
        XCTAssertFalse(xml.contains("p99 < 5"), "a raw < would break the XML")
        let headlineWorse = c.metrics.filter(\.headline).flatMap(\.percentiles).filter { $0.verdict == .worse }.count
            + c.rates.filter { $0.verdict == .worse }.count
        XCTAssertTrue(xml.contains("<testsuites name=\"fleet \(slow.meta.profile)\" tests=\"\(2 + figures)\" failures=\"\(1 + headlineWorse)\""))
        XCTAssertTrue(xml.contains("ratio "), "compared figures carry their measured values")
    }
}
