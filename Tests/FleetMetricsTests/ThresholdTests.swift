import XCTest
@testable import FleetMetrics

final class ThresholdTests: XCTestCase {
    private func results() -> RunResults {
        let r = Recorder(startNanos: 0)
        // 100 turnarounds of 1…100 ms; 200 requests of which 3 failed; 4 dropped arrivals.
        for i in 1...100 { r.recordLatency(MetricName("assessment_turnaround"), intended: 0, actual: 0, end: UInt64(i) * 1_000_000) }
        for i in 0..<200 {
            r.recordRequest("GET /home", intended: 0, actual: 0, end: 2_000_000, status: i < 3 ? 500 : 200,
                            errorCode: i < 3 ? "internal" : nil, message: nil, breakdown: nil)
        }
        r.count("dropped_arrivals", 4)
        return r.snapshot(RunMetadata(runId: "t", profile: "p", seed: 1, target: "x", startedAt: "now"))
    }

    func testParsesEveryStatisticAndOperator() throws {
        XCTAssertEqual(try Threshold.parse("p99 < 8000").statistic, .percentile(99))
        XCTAssertEqual(try Threshold.parse("p99.9<=12.5").statistic, .percentile(99.9))
        XCTAssertEqual(try Threshold.parse("p99.9<=12.5").comparison, .lessOrEqual)
        XCTAssertEqual(try Threshold.parse("p99.9<=12.5").expression, "p99.9 <= 12.5")
        XCTAssertEqual(try Threshold.parse(" rate < 0.01 ").limit, 0.01)
        XCTAssertEqual(try Threshold.parse("count >= 10").comparison, .greaterOrEqual)
        XCTAssertEqual(try Threshold.parse("max > 1").statistic, .max)
        XCTAssertEqual(try Threshold.parse("med < 3").statistic, .percentile(50))
    }

    func testRejectsMalformedRulesSayingWhy() {
        let cases = [("p99 8000", "OP one of"), ("p99 < fast", "expected a number"), ("p101 < 3", "p0…p100"),
                     ("avgx < 3", "unknown statistic 'avgx'"), ("< 3", "missing statistic"), ("rate < 5", "fraction")]
        for (rule, expected) in cases {
            XCTAssertThrowsError(try Threshold.parse(rule), rule) { error in
                XCTAssertTrue("\(error)".contains(expected), "\(error) should contain '\(expected)'")
                XCTAssertTrue("\(error)".hasPrefix("threshold '\(rule)'"), "\(error)")
            }
        }
    }

    func testEvaluatesLatencyRatesCountsAndSaysByHowMuch() throws {
        let r = results()
        let pass = try Threshold.parse("p99 < 200").evaluate(metric: "assessment_turnaround", in: r)
        XCTAssertTrue(pass.passed)
        XCTAssertEqual(pass.observed, 99, accuracy: 0.1)

        let fail = try Threshold.parse("p50 < 40").evaluate(metric: "assessment_turnaround", in: r)
        XCTAssertFalse(fail.passed)
        XCTAssertEqual(fail.observed, 50, accuracy: 0.06)
        XCTAssertTrue(fail.message.contains("over by 10"), fail.message)
        XCTAssertTrue(fail.message.contains("25.0 %"), fail.message)

        let rate = try Threshold.parse("rate < 0.01").evaluate(metric: "http_errors", in: r)
        XCTAssertFalse(rate.passed)
        XCTAssertEqual(rate.observed, 0.015, accuracy: 1e-9)
        XCTAssertTrue(try Threshold.parse("rate < 0.02").evaluate(metric: "http:GET /home", in: r).passed)
        XCTAssertFalse(try Threshold.parse("count < 1").evaluate(metric: "dropped_arrivals", in: r).passed)
        XCTAssertTrue(try Threshold.parse("count > 199").evaluate(metric: "GET /home", in: r).passed)

        let missing = try Threshold.parse("p99 < 8000").evaluate(metric: "settlement", in: r)
        XCTAssertFalse(missing.passed)
        XCTAssertTrue(missing.message.contains("no samples"))

        let all = try Threshold.evaluateAll(["settlement": ["p99 < 1"], "assessment_turnaround": ["p99 < 200", "max > 1"]], in: r)
        XCTAssertEqual(all.map(\.metric), ["assessment_turnaround", "assessment_turnaround", "settlement"])
        XCTAssertEqual(all.map(\.passed), [true, true, false])
    }

    func testThresholdsAreJudgedAgainAfterAMerge() throws {
        var a = results()
        a.meta.thresholds = try Threshold.evaluateAll(["http_errors": ["rate < 0.02"]], in: a)
        XCTAssertTrue(a.meta.passed, "1.5 % errors in the first shard")
        let r = Recorder(startNanos: 0)
        for _ in 0..<100 {
            r.recordRequest("GET /home", intended: 0, actual: 0, end: 1_000_000, status: 503, errorCode: "unavailable",
                            message: nil, breakdown: nil)
        }
        a.merge(r.snapshot(a.meta))
        XCTAssertTrue(a.meta.passed, "merge leaves verdicts alone")
        a.reevaluateThresholds()
        XCTAssertFalse(a.meta.passed, "103 errors in 300 requests")
        XCTAssertEqual(a.meta.thresholds[0].observed, 103.0 / 300.0, accuracy: 1e-12)
    }

    func testGeneratorBehindIsReportedForLagAndDroppedArrivals() {
        let r = Recorder(startNanos: 0)
        for i in 0..<100 { r.recordLatency(MetricName("x"), intended: 0, actual: i < 5 ? 200_000_000 : 0, end: 300_000_000) }
        var res = r.snapshot(RunMetadata(runId: "t", profile: "p", seed: 1, target: "x", startedAt: "now"))
        let reasons = res.generatorBehindReasons()
        XCTAssertEqual(reasons.count, 1)
        XCTAssertTrue(reasons[0].contains("scheduling lag p99 200 ms"), reasons[0])
        res.counters["dropped_arrivals"] = 2
        XCTAssertEqual(res.generatorBehindReasons().count, 2)
        XCTAssertEqual(res.generatorBehindReasons(lagP99BoundMicros: 300_000).count, 1)
        // The bound the run used travels with its results, so a re-rendered report judges alike.
        res.counters["dropped_arrivals"] = nil
        res.meta.lagBoundMicros = 250_000
        XCTAssertEqual(res.generatorBehindReasons(), [])
        XCTAssertEqual(try RunResults.decode(try res.encodedJSON()).generatorBehindReasons(), [])
    }
}
