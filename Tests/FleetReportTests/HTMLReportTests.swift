import FleetMetrics
import Foundation
import XCTest
@testable import FleetReport

final class HTMLReportTests: XCTestCase {
    private let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

    private func load(_ name: String) throws -> RunResults {
        try RunResults.load(path: fixtures.appendingPathComponent(name).path)
    }

    /// The page of the fixture run with baseline and history keeps the structure in
    /// `Fixtures/index.structure.txt` (re-record by deleting the file and running the test once).
    func testPageStructureMatchesTheSnapshot() throws {
        let results = try load("results.json"), baseline = try load("baseline.json")
        let html = ReportWriter.renderHTML(results, baseline: baseline,
                                           history: [HistoryRow(results: baseline), HistoryRow(results: results)])
        let outline = HTMLStructure.outline(html)
        let snapshot = fixtures.appendingPathComponent("index.structure.txt")
        guard let expected = try? String(contentsOf: snapshot, encoding: .utf8) else {
            try outline.write(to: snapshot, atomically: true, encoding: .utf8)
            return XCTFail("no snapshot at \(snapshot.path); recorded one now: review it and commit it")
        }
        if outline != expected {
            let a = outline.split(separator: "\n"), b = expected.split(separator: "\n")
            let first = zip(a, b).enumerated().first { $0.element.0 != $0.element.1 }
            XCTFail("page structure changed; first difference at line \((first?.offset ?? min(a.count, b.count)) + 1): "
                    + "got '\(first?.element.0 ?? "")', expected '\(first?.element.1 ?? "")'")
        }
    }

    func testPageIsSelfContained() throws {
        let html = ReportWriter.renderHTML(try load("results.json"), baseline: try load("baseline.json"))
        for forbidden in ["<script", "<link", " src=", "url(", "@import", "<iframe", "<img"] {
            XCTAssertFalse(html.contains(forbidden), "the page must not load anything: found '\(forbidden)'")
        }
        // The only absolute URLs are the SVG namespace (an identifier, never fetched) and the run's target.
        let urls = try NSRegularExpression(pattern: "https?://[^\"<\\s]+").matches(in: html, range: NSRange(html.startIndex..., in: html))
            .map { String(html[Range($0.range, in: html)!]) }
        XCTAssertEqual(Set(urls), ["http://www.w3.org/2000/svg", "http://127.0.0.1:8080"])
    }

    func testVerdictWarningAndBaselineAreShownInWordsNotOnlyColour() throws {
        let results = try load("results.json"), baseline = try load("baseline.json")
        let html = ReportWriter.renderHTML(results, baseline: baseline)
        XCTAssertTrue(html.contains("THE GENERATOR FELL BEHIND"), "the fixture has a 0.9 s stall and dropped arrivals")
        XCTAssertTrue(html.contains("3 arrivals were dropped"))
        XCTAssertTrue(html.contains("✘ FAILED"))
        let failed = results.meta.thresholds.first { !$0.passed }!
        XCTAssertTrue(html.contains(Format.html(failed.message)), "the failed threshold says by how much")
        XCTAssertTrue(html.contains("(worse)") || html.contains("(better)"), "baseline deltas are spelled out")
        XCTAssertTrue(html.contains("<section id=\"baseline\">"))
        XCTAssertTrue(html.contains(Format.html(results.meta.notes[0])))

        let calm = ReportWriter.renderHTML(baseline)
        XCTAssertFalse(calm.contains("GENERATOR FELL BEHIND"), "the baseline fixture kept up")
        XCTAssertFalse(calm.contains("<section id=\"baseline\">"))
        XCTAssertFalse(calm.contains("<section id=\"history\">"))
    }

    func testFunnelSaysWhereUsersLeftAndWhenAStepRepeats() {
        let r = Recorder(startNanos: 0)
        for i in 0..<4 {
            r.journeyStarted("dailyQuest", cohort: "new")
            r.journeyReached("dailyQuest", cohort: "new", step: "home")
            if i == 0 {
                r.journeyEnded("dailyQuest", cohort: "new", outcome: .failed, step: "home", errorCode: "timeout", intended: 0, end: 1)
                continue
            }
            r.journeyReached("dailyQuest", cohort: "new", step: "home")  // home again at the end
            r.journeyEnded("dailyQuest", cohort: "new", outcome: .completed, step: "home", errorCode: nil, intended: 0, end: 1)
        }
        let html = ReportWriter.renderHTML(r.snapshot(RunMetadata(runId: "f", profile: "p", seed: 0, target: "t", startedAt: "s")))
        XCTAssertTrue(html.contains("1.75× per journey"), "7 visits of home over 4 journeys")
        XCTAssertTrue(html.contains("1 failed (timeout)"))
        XCTAssertTrue(html.contains("75.0 %"), "3 of 4 completed")
    }

    func testEmptyResultsStillRenderEverySection() {
        let empty = RunResults(meta: RunMetadata(runId: "e", profile: "p", seed: 0, target: "t", startedAt: "s"))
        let html = ReportWriter.renderHTML(empty)
        for id in ["verdict", "cards", "timeline", "distribution", "endpoints", "journeys", "errors", "health"] {
            XCTAssertTrue(html.contains("<section id=\"\(id)\">"), id)
        }
        XCTAssertTrue(html.contains("No requests were recorded."))
        XCTAssertTrue(html.contains("no data recorded"))
        XCTAssertTrue(html.contains("NO THRESHOLDS"))
    }

    func testWriterWritesEveryFileAndTheJSONRoundTrips() throws {
        let results = FixtureFeed.results(seed: 3, seconds: 5)
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fleet-report-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let index = try ReportWriter.write(results, to: dir + "/nested/run")
        XCTAssertEqual(index, dir + "/nested/run/index.html")
        for f in ReportWriter.files {
            let size = (try FileManager.default.attributesOfItem(atPath: dir + "/nested/run/" + f)[.size] as? Int) ?? 0
            XCTAssertGreaterThan(size, 50, f)
        }
        XCTAssertEqual(try RunResults.load(path: dir + "/nested/run/results.json"), results)
        let summary = try String(contentsOfFile: dir + "/nested/run/summary.csv", encoding: .utf8)
        XCTAssertEqual(summary, CSVTables.summary(results))
    }

    func testWriterNamesAnUnwritableDirectory() {
        let results = FixtureFeed.results(seed: 3, seconds: 2)
        XCTAssertThrowsError(try ReportWriter.write(results, to: "/proc/fleet-cannot-write-here")) { error in
            XCTAssertTrue("\(error)".hasPrefix("/proc/fleet-cannot-write-here"), "\(error)")
        }
    }

    /// The generator-health CPU chart carries the host's steal beside the bench's CPU when the
    /// samples have it, as a share of one core per window; results without it get no such series.
    func testHostStealIsChartedBesideTheBenchCPUWhenRecorded() throws {
        var r = FixtureFeed.results(seed: 41, stall: false, seconds: 4)
        XCTAssertEqual(ReportFacts.health(r).cpu.map(\.name), ["CPU (% of one core)"])
        for i in r.health.indices { r.health[i].hostStealSeconds = [0, 0, 0.25, 0.25][r.health[i].window] }
        let cpu = ReportFacts.health(r).cpu
        XCTAssertEqual(cpu.map(\.name), ["CPU (% of one core)", "host steal (% of one core)"])
        XCTAssertEqual(cpu[1].points.map(\.y), [0, 25, 0])
        XCTAssertTrue(ReportWriter.renderHTML(r).contains("host steal (% of one core)"))
    }
}
