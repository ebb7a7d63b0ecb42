import FleetCore
import Foundation
import XCTest
@testable import FleetMetrics

final class RecorderTests: XCTestCase {
    private let second: UInt64 = 1_000_000_000
    private let meta = RunMetadata(runId: "r1", profile: "smoke", seed: 42, target: "http://127.0.0.1:1",
                                   startedAt: "2026-11-29T15:00:00Z")

    /// Feeds a recorder a deterministic mix of every kind of sample over `seconds` windows.
    private func feed(_ r: Recorder, seed: UInt64, start: UInt64, seconds: Int, perSecond: Int) {
        var rng = SeededRandom(seed: seed)
        for s in 0..<seconds {
            for k in 0..<perSecond {
                let intended = start + UInt64(s) * second + UInt64(k) * (second / UInt64(perSecond))
                let actual = intended + UInt64(rng.exponential(mean: 200_000))  // ~0.2 ms lag
                let end = actual + UInt64(rng.lognormal(median: 5_000_000, sigma: 0.8))
                let status = rng.chance(0.05) ? 503 : (rng.chance(0.02) ? nil : 200)
                r.recordRequest(k % 2 == 0 ? "GET /home" : "GET /attempts/{id}", intended: intended, actual: actual,
                                end: end, status: status, errorCode: status == 503 ? "unavailable" : (status == nil ? "timeout" : nil),
                                message: status == nil ? "timed out after 5 s" : nil,
                                breakdown: status == nil ? nil : RequestBreakdown(dnsMicros: 10, connectMicros: 50, firstByteMicros: 900, totalMicros: 1000))
                if k % 3 == 0 {
                    r.recordLatency(MetricName("assessment_turnaround"), intended: intended, actual: actual,
                                    end: end + UInt64(rng.lognormal(median: 2e9, sigma: 0.5)), failed: rng.chance(0.01))
                    r.recordValue(MetricName("assessment_turnaround_server"), micros: Int64(rng.lognormal(median: 1.5e6, sigma: 0.3)), at: end)
                }
                if k % 10 == 0 {
                    r.journeyStarted("dailyQuest", cohort: "returning")
                    r.journeyReached("dailyQuest", cohort: "returning", step: "home")
                    let outcome: JourneyOutcome = rng.chance(0.8) ? .completed : (rng.chance(0.5) ? .abandoned : .failed)
                    if outcome == .completed { r.journeyReached("dailyQuest", cohort: "returning", step: "complete") }
                    r.journeyEnded("dailyQuest", cohort: "returning", outcome: outcome, step: outcome == .completed ? "complete" : "home",
                                   errorCode: outcome == .failed ? "unexpected_status" : nil, intended: intended, end: end)
                }
            }
            r.count("retries", 2)
        }
    }

    func testCorrectedUncorrectedAndSchedulingLag() {
        let t0: UInt64 = 1_000 * second
        let r = Recorder(startNanos: t0)
        // Intended at 0, sent 300 ms late, done 100 ms after sending.
        r.recordLatency(MetricName("settlement"), intended: t0, actual: t0 + 300_000_000, end: t0 + 400_000_000)
        let res = r.snapshot(meta)
        let s = try! XCTUnwrap(res.metric("settlement"))
        XCTAssertEqual(s.corrected.max, 400_000)
        XCTAssertEqual(s.uncorrected.max, 100_000)
        XCTAssertEqual(res.metric(MetricName.schedulingLag)?.corrected.max, 300_000)
        XCTAssertEqual(s.windows.map(\.index), [0])
    }

    func testCorrectedIsNeverBelowUncorrectedAtAnyPercentile() {
        let t0: UInt64 = 3 * second
        let r = Recorder(startNanos: t0)
        feed(r, seed: 9, start: t0, seconds: 3, perSecond: 300)
        let res = r.snapshot(meta)
        let ps: [Double] = [0, 10, 50, 90, 99, 99.9, 100]
        for m in res.metrics + res.endpoints.map(\.latency) {
            for (c, u) in zip(m.corrected.values(atPercentiles: ps), m.uncorrected.values(atPercentiles: ps)) {
                XCTAssertGreaterThanOrEqual(c, u, m.name)
            }
        }
    }

    func testWindowsMergeExactlyIntoTheTotals() throws {
        let t0: UInt64 = 5_000 * second
        let r = Recorder(startNanos: t0)
        feed(r, seed: 1, start: t0, seconds: 6, perSecond: 300)
        let res = r.snapshot(meta)
        XCTAssertGreaterThan(res.metrics.count, 2)
        for m in res.metrics + res.endpoints.map(\.latency) {
            XCTAssertGreaterThan(m.windows.count, 4, m.name)
            var c = Histogram(), u = Histogram(), errors: Int64 = 0
            for w in m.windows { c.merge(w.corrected); u.merge(w.uncorrected); errors += w.errors }
            XCTAssertEqual(c, m.corrected, m.name)
            XCTAssertEqual(u, m.uncorrected, m.name)
            XCTAssertEqual(errors, m.errors, m.name)
        }
    }

    func testRequestsFillEndpointStatusErrorAndJourneyTables() throws {
        let t0: UInt64 = 9 * second
        let r = Recorder(startNanos: t0)
        r.recordRequest("POST /sessions", intended: t0, actual: t0, end: t0 + 2 * second, status: 409,
                        errorCode: "stage_precondition", message: "round 1 not assessed", breakdown: nil)
        r.recordRequest("POST /sessions", intended: t0 + 3 * second, actual: t0 + 3 * second, end: t0 + 3 * second + 5,
                        status: 409, errorCode: "stage_precondition", message: "later", breakdown: nil)
        r.recordRequest("POST /sessions", intended: t0, actual: t0, end: t0 + 1_000_000, status: 201,
                        errorCode: nil, message: nil, breakdown: RequestBreakdown(dnsMicros: 3, connectMicros: 40, firstByteMicros: 800, totalMicros: 1000))
        r.recordRequest("GET /home", intended: t0, actual: t0, end: t0 + 5 * second, status: nil,
                        errorCode: "timeout", message: "no response in 5 s", breakdown: nil)
        // An expected 404 (plan not ready) counts in the statuses but not as an error.
        r.recordRequest("GET /plan", intended: t0, actual: t0, end: t0 + 1_000_000, status: 404, errorCode: "not_found",
                        message: nil, breakdown: nil, isError: false)
        r.journeyStarted("firstLaunch", cohort: "new")
        r.journeyStarted("firstLaunch", cohort: "new")
        r.journeyReached("firstLaunch", cohort: "new", step: "auth")
        r.journeyReached("firstLaunch", cohort: "new", step: "auth")
        r.journeyReached("firstLaunch", cohort: "new", step: "paywall")
        r.journeyEnded("firstLaunch", cohort: "new", outcome: .abandoned, step: "paywall", errorCode: nil, intended: t0, end: t0 + second)
        r.journeyEnded("firstLaunch", cohort: "new", outcome: .failed, step: "auth", errorCode: "timeout", intended: t0, end: t0 + second)
        r.count("dropped_arrivals", 3)
        r.healthSample(activeUsers: 10, inFlight: 4, cpuSeconds: 0.5, rssBytes: 1 << 20)

        let res = r.snapshot(meta)
        let post = try XCTUnwrap(res.endpoint("POST /sessions"))
        XCTAssertEqual(post.statuses, ["409": 2, "201": 1])
        XCTAssertEqual(post.errorCodes, ["stage_precondition": 2])
        XCTAssertEqual(post.latency.errors, 2)
        XCTAssertEqual(post.firstByte.count, 1)
        XCTAssertEqual(post.firstByte.max, 800)
        XCTAssertEqual(res.endpoint("GET /home")?.statuses, ["transport": 1])
        XCTAssertEqual(res.requestTotals.requests, 5)
        XCTAssertEqual(res.requestTotals.errors, 3)
        XCTAssertEqual(res.endpoint("GET /plan")?.statuses, ["404": 1])
        XCTAssertEqual(res.endpoint("GET /plan")?.latency.errors, 0)

        XCTAssertEqual(res.errors.map(\.endpoint), ["GET /home", "POST /sessions"])
        let conflict = res.errors[1]
        XCTAssertEqual(conflict.status, 409)
        XCTAssertEqual(conflict.count, 2)
        XCTAssertEqual(conflict.firstOffsetNanos, 2 * second)
        XCTAssertEqual(conflict.sampleMessage, "round 1 not assessed")
        XCTAssertEqual(conflict.windows, [WindowCount(window: 2, count: 1), WindowCount(window: 3, count: 1)])
        XCTAssertNil(res.errors[0].status)

        let j = try XCTUnwrap(res.journeys.first)
        XCTAssertEqual([j.started, j.completed, j.abandoned, j.failed], [2, 0, 1, 1])
        XCTAssertEqual(j.steps, [StepCount(step: "auth", reached: 2), StepCount(step: "paywall", reached: 1)])
        XCTAssertEqual(j.exits, [JourneyExit(outcome: .abandoned, step: "paywall", code: nil, count: 1),
                                 JourneyExit(outcome: .failed, step: "auth", code: "timeout", count: 1)])
        XCTAssertEqual(res.counters, ["dropped_arrivals": 3])
        XCTAssertEqual(res.health.first?.activeUsers, 10)

        let live = r.liveTotals()
        XCTAssertEqual(live.requests, 5)
        XCTAssertEqual(live.errors, 3)
        XCTAssertEqual(live.journeysStarted, 2)
        XCTAssertEqual(live.journeysFailed, 1)
    }

    func testInterleavedJourneysKeepTheirOwnFunnels() throws {
        // Users of two journeys and two cohorts reach steps in turns: each (journey, cohort)
        // keeps its own counts and the order its steps were first reached, even when the slot
        // reached last belongs to another, and a step name that is another's prefix is its own.
        let r = Recorder(startNanos: second)
        let walk: [(String, String, String)] = [
            ("dailyQuest", "new", "home"), ("firstLaunch", "new", "install"), ("dailyQuest", "new", "home"),
            ("dailyQuest", "returning", "home"), ("dailyQuest", "new", "record"), ("firstLaunch", "new", "install"),
            ("dailyQuest", "new", "home_first_time"), ("dailyQuest", "new", "record"), ("dailyQuest", "returning", "settle"),
        ]
        for (journey, cohort, step) in walk { r.journeyReached(journey, cohort: cohort, step: step) }
        let res = r.snapshot(meta)
        func steps(_ journey: String, _ cohort: String) -> [StepCount]? {
            res.journeys.first { $0.journey == journey && $0.cohort == cohort }?.steps
        }
        XCTAssertEqual(res.journeys.count, 3)
        XCTAssertEqual(steps("dailyQuest", "new"), [StepCount(step: "home", reached: 2), StepCount(step: "record", reached: 2),
                                                    StepCount(step: "home_first_time", reached: 1)])
        XCTAssertEqual(steps("firstLaunch", "new"), [StepCount(step: "install", reached: 2)])
        XCTAssertEqual(steps("dailyQuest", "returning"), [StepCount(step: "home", reached: 1), StepCount(step: "settle", reached: 1)])
    }

    func testResultsJSONRoundTripIsExact() throws {
        let t0: UInt64 = 77 * second
        let r = Recorder(startNanos: t0)
        feed(r, seed: 5, start: t0, seconds: 3, perSecond: 200)
        var m = meta
        m.thresholds = [ThresholdVerdict(metric: "assessment_turnaround", expression: "p99 < 8000", passed: true,
                                         observed: 4100.5, limit: 8000, message: "ok")]
        let res = r.snapshot(m)
        let data = try res.encodedJSON()
        let back = try RunResults.decode(data)
        XCTAssertEqual(back, res)
        XCTAssertEqual(try back.encodedJSON(), data)
    }

    /// The result stream writes its lines in one pass (`StreamingJSON`): a whole run's results so
    /// written decode to the same results as `JSONEncoder`'s form.
    func testResultsWrittenInOnePassDecodeToTheSameResults() throws {
        let t0: UInt64 = 77 * second
        let r = Recorder(startNanos: t0)
        feed(r, seed: 9, start: t0, seconds: 3, perSecond: 150)
        r.healthSample(activeUsers: 3, inFlight: 2, cpuSeconds: 0.25, rssBytes: 1 << 22, hostStealSeconds: 0.5)
        var m = meta
        m.notes = ["a note with \"quotes\" and a\nnewline"]
        m.thresholds = [ThresholdVerdict(metric: "assessment_turnaround", expression: "p99 < 8000", passed: false,
                                         observed: 9100.25, limit: 8000, message: "p99 9100.25 ms")]
        let res = r.snapshot(m)
        XCTAssertFalse(res.errors.isEmpty)
        XCTAssertFalse(res.journeys.isEmpty)
        let bytes = try StreamingJSON.encode(res)
        XCTAssertEqual(try RunResults.decode(Data(bytes)), res)
        XCTAssertEqual(try JSONValue.parse(bytes), try JSONValue.parse(Array(try res.encodedJSON())))
    }

    func testDecodingNamesTheBrokenField() {
        let json = #"{"format":1,"windowNanos":1000000000,"metrics":[],"endpoints":[],"errors":[],"journeys":[],"counters":{},"health":[]}"#
        XCTAssertThrowsError(try RunResults.decode(Data(json.utf8), source: "shard0.json")) { error in
            XCTAssertEqual("\(error)", "shard0.json: missing field meta")
        }
    }

    func testMergingShardsEqualsOneRecorderWithBothStreams() throws {
        let t0: UInt64 = 100 * second, t1: UInt64 = 900 * second  // different processes, different clocks
        let a = Recorder(startNanos: t0), b = Recorder(startNanos: t1), both = Recorder(startNanos: t0)
        feed(a, seed: 1, start: t0, seconds: 4, perSecond: 150)
        feed(b, seed: 2, start: t1, seconds: 5, perSecond: 100)
        feed(both, seed: 1, start: t0, seconds: 4, perSecond: 150)
        feed(both, seed: 2, start: t0, seconds: 5, perSecond: 100)
        var merged = a.snapshot(meta)
        merged.merge(try RunResults.decode(try b.snapshot(meta).encodedJSON()))
        var expected = both.snapshot(meta)
        expected.meta.shards = 2
        XCTAssertEqual(merged.metrics, expected.metrics)
        XCTAssertEqual(merged.endpoints, expected.endpoints)
        XCTAssertEqual(merged.errors, expected.errors)
        XCTAssertEqual(merged.counters, expected.counters)
        XCTAssertEqual(merged.journeys.map(\.started), expected.journeys.map(\.started))
        XCTAssertEqual(merged.journeys.map(\.duration), expected.journeys.map(\.duration))
        XCTAssertEqual(merged.journeys.map(\.exits), expected.journeys.map(\.exits))
        XCTAssertEqual(merged, expected)
    }

    func testConcurrentRecordingLosesNothing() {
        let r = Recorder()
        let threads = 8, perThread = 100_000
        let base = r.startNanos, second = self.second
        DispatchQueue.concurrentPerform(iterations: threads) { t in
            for i in 0..<perThread {
                // Spread over 3 windows so window roll-over and compaction race with recording.
                let at = base + UInt64((i * 3) / perThread) * second + UInt64(t)
                if i % 2 == 0 {
                    r.recordLatency(MetricName("assessment_turnaround"), intended: at, actual: at, end: at + UInt64(i % 5000) * 1000)
                } else {
                    r.recordRequest("GET /home", intended: at, actual: at, end: at + 1_000_000, status: 200,
                                    errorCode: nil, message: nil, breakdown: nil)
                }
            }
        }
        let res = r.snapshot(meta)
        let total = Int64(threads * perThread)
        XCTAssertEqual(res.metric("assessment_turnaround")?.corrected.count, total / 2)
        XCTAssertEqual(res.endpoint("GET /home")?.latency.corrected.count, total / 2)
        XCTAssertEqual(res.metric(MetricName.schedulingLag)?.corrected.count, total)
        XCTAssertEqual(res.metric("assessment_turnaround")?.windows.reduce(0) { $0 + $1.corrected.count }, total / 2)
        XCTAssertEqual(r.liveTotals().requests, total / 2)
    }
}
