import FleetMetrics
import XCTest
@testable import FleetReport

final class CSVTablesTests: XCTestCase {
    private func small() -> RunResults {
        let r = Recorder(startNanos: 0)
        r.recordLatency(MetricName("settlement"), intended: 0, actual: 0, end: 12_345_000)
        r.recordLatency(MetricName("settlement"), intended: 0, actual: 0, end: 2_000_000, failed: true)
        r.recordLatency(MetricName("zz_custom"), intended: 0, actual: 0, end: 1_000_000)
        r.recordRequest("GET /home", intended: 0, actual: 0, end: 1_500_000_000, status: 500, errorCode: "internal",
                        message: "boom, \"bad\"", breakdown: RequestBreakdown(dnsMicros: 5, connectMicros: 50, firstByteMicros: 900, totalMicros: 1000))
        r.recordRequest("GET /home", intended: 0, actual: 0, end: 3_000_000, status: 200, errorCode: nil, message: nil, breakdown: nil)
        r.journeyStarted("dailyQuest", cohort: "new")
        r.journeyEnded("dailyQuest", cohort: "new", outcome: .completed, step: "home", errorCode: nil, intended: 0, end: 4_000_000)
        return r.snapshot(RunMetadata(runId: "c", profile: "p", seed: 1, target: "t", startedAt: "s", actualDurationSeconds: 2))
    }

    func testSummaryHasTheContractHeaderAndRowOrder() {
        let lines = CSVTables.summary(small()).split(separator: "\n").map(String.init)
        XCTAssertEqual(lines[0], "metric,count,p50_ms,p90_ms,p99_ms,p99_9_ms,max_ms,mean_ms,errors")
        XCTAssertEqual(lines.map { $0.split(separator: ",", omittingEmptySubsequences: false)[0] },
                       ["metric", "assessment_turnaround", "assessment_turnaround_server", "settlement", "scheduling_lag",
                        "zz_custom", "http:GET /home"])
        XCTAssertEqual(lines[1], "assessment_turnaround,0,,,,,,,0", "headline rows exist even without samples")
        // 2 ms sits in the exact linear range; 12.345 ms in an 8 µs bin whose top is limited to the exact max.
        XCTAssertEqual(lines[3], "settlement,2,2.000,12.345,12.345,12.345,12.345,7.173,1")
        XCTAssertTrue(lines[6].hasPrefix("http:GET /home,2,3.001,"), lines[6])
        XCTAssertTrue(lines[6].hasSuffix(",1"))
    }

    func testOtherTablesCarryTheirColumns() {
        let r = small()
        let endpoints = CSVTables.endpoints(r).split(separator: "\n").map(String.init)
        XCTAssertEqual(endpoints[0], CSVTables.endpointsHeader)
        let cells = endpoints[1].split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        XCTAssertEqual(cells.count, CSVTables.endpointsHeader.split(separator: ",").count)
        XCTAssertEqual(cells[0], "GET /home")
        XCTAssertEqual(cells[2], "1.000", "2 requests over 2 s")
        XCTAssertEqual(cells[11], "200:1;500:1")
        XCTAssertEqual(cells[15], "0.900", "first byte p50")

        let errors = CSVTables.errors(r).split(separator: "\n").map(String.init)
        XCTAssertEqual(errors, [CSVTables.errorsHeader, "GET /home,500,internal,1,1.500,\"boom, \"\"bad\"\"\""])

        let journeys = CSVTables.journeys(r).split(separator: "\n").map(String.init)
        XCTAssertEqual(journeys, [CSVTables.journeysHeader, "dailyQuest,new,1,1,0,0,0,4.000,4.000"])

        let timeline = CSVTables.timeline(r).split(separator: "\n").map(String.init)
        XCTAssertEqual(timeline[0], "window_start_s,metric,count,p50_ms,p90_ms,p99_ms,max_ms,errors")
        let windows = (r.metrics + r.endpoints.map(\.latency)).reduce(0) { $0 + $1.windows.count }
        XCTAssertEqual(timeline.count - 1, windows)
        XCTAssertEqual(timeline.last, "1.000,http:GET /home,1,1500.000,1500.000,1500.000,1500.000,1")
        let starts = timeline.dropFirst().map { Double($0.split(separator: ",")[0])! }
        XCTAssertEqual(starts, starts.sorted(), "rows are in time order")
    }
}
