import XCTest
@testable import FleetMetrics

/// Metric names and counter keys have one spelling, and the serialized strings stay as they were.
final class MetricNameTests: XCTestCase {
    func testRecordedMetricsAreKnownByTheirSerializedNamesAndOthersAreNot() {
        XCTAssertEqual(MetricName.recorded.map(\.rawValue),
                       ["assessment_turnaround", "assessment_turnaround_server", "settlement", "settlement_e2e",
                        "settlement_replay", "user_start", "scheduling_lag"])
        for m in MetricName.recorded { XCTAssertEqual(MetricName.known(m.rawValue), m) }
        XCTAssertNil(MetricName.known("assessment_turnround"))
        XCTAssertNil(MetricName.known("http:GET /home"), "an endpoint's latency is not a journey metric")
        XCTAssertEqual(MetricName.headline, [.assessmentTurnaround, .assessmentTurnaroundServer, .settlement])
    }

    func testRecorderFilesSamplesUnderTheRawNameAndResultsFindThemByName() throws {
        let r = Recorder(startNanos: 0)
        r.recordLatency(.settlementE2E, intended: 0, actual: 0, end: 5_000_000)
        let res = r.snapshot(RunMetadata(runId: "t", profile: "p", seed: 1, target: "x", startedAt: "",
                                         plannedDurationSeconds: 1, actualDurationSeconds: 1))
        XCTAssertEqual(res.metric(.settlementE2E)?.corrected.count, 1)
        XCTAssertEqual(res.metric("settlement_e2e")?.corrected.count, 1)
        XCTAssertEqual(String(decoding: try JSONEncoder().encode(MetricName.userStart), as: UTF8.self), #""user_start""#)
        XCTAssertEqual(try JSONDecoder().decode(MetricName.self, from: Data(#""user_start""#.utf8)), .userStart)
    }

    func testCounterKeysBuildAndParseWithOneSpelling() {
        XCTAssertEqual(CounterKey.usersStarted("daily").key, "users_started:daily")
        XCTAssertEqual(CounterKey.droppedArrivals("daily").key, "dropped_arrivals:daily")
        XCTAssertEqual(CounterKey.droppedArrivals.key, "dropped_arrivals")
        XCTAssertEqual(CounterKey(parsing: "users_started:daily"), .usersStarted("daily"))
        XCTAssertEqual(CounterKey(parsing: "users_started:a:b"), .usersStarted("a:b"), "the scenario is everything after the first colon")
        XCTAssertEqual(CounterKey(parsing: "retries"), .retries)
        for name in CounterKey.Name.runWide { XCTAssertEqual(CounterKey(parsing: name.rawValue)?.key, name.rawValue) }
        XCTAssertNil(CounterKey(parsing: "retrys"), "unknown counter")
        XCTAssertNil(CounterKey(parsing: "users_started"), "users_started is only kept per scenario")
        XCTAssertNil(CounterKey(parsing: "app_kills:daily"), "app_kills is not kept per scenario")
        XCTAssertNil(CounterKey(parsing: "nosuch:daily"))
    }

    func testCountersSumOverScenariosAndAreReadByKey() {
        let r = Recorder(startNanos: 0)
        r.count(.usersStarted("a"), 3)
        r.count(.usersStarted("b"), 4)
        r.count(.droppedArrivals("a"))
        r.count(.droppedArrivals)
        let res = r.snapshot(RunMetadata(runId: "t", profile: "p", seed: 1, target: "x", startedAt: "",
                                         plannedDurationSeconds: 1, actualDurationSeconds: 1))
        XCTAssertEqual(res.counters, ["users_started:a": 3, "users_started:b": 4, "dropped_arrivals:a": 1, "dropped_arrivals": 1])
        XCTAssertEqual(res.counterOverScenarios(.usersStarted), 7)
        XCTAssertEqual(res.counterOverScenarios(.droppedArrivals), 1, "the run-wide counter is not a scenario's")
        XCTAssertEqual(res.counter(.droppedArrivals("a")), 1)
        XCTAssertNil(res.counter(.appKills))
    }
}
