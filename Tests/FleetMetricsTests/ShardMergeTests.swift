import FleetCore
import Foundation
import XCTest
@testable import FleetMetrics

/// `ShardMerge`: the shards of one run merge into exactly what one process recording every
/// sample would hold, and inputs that are not the shards of one run are refused by name.
final class ShardMergeTests: XCTestCase {
    private let window: UInt64 = 1_000_000_000
    private let barrier: Int64 = 1_796_000_000_000  // 2026-11-29T…Z, whole seconds

    private func meta(shard: Int, of count: Int, lateMillis: Int64 = 0, seed: UInt64 = 7, profile: String = "p",
                      digest: String = "d1") -> RunMetadata {
        var m = RunMetadata(runId: "p-20261129-000000-\(seed)-shard-\(shard)-of-\(count)", profile: profile, seed: seed,
                            target: "http://127.0.0.1:9", startedAt: RFC3339.format(millis: barrier + lateMillis),
                            thresholds: [ThresholdVerdict(metric: "m0", expression: "p50 < 1000000", passed: true, observed: 0,
                                                          limit: 1_000_000, message: "judged on one shard")])
        m.shard = ShardInfo(index: shard, count: count, profileDigest: digest, startAt: RFC3339.format(millis: barrier),
                            lateByMillis: lateMillis)
        m.startCpuSeconds = 0.25 + Double(shard)
        return m
    }

    /// The property: random values, spread at random over shards, windows and metrics (and shards
    /// that started whole windows plus a few milliseconds late), give merged results equal to one
    /// recorder that got every value at its wall-clock time: histograms, every window, every
    /// percentile, endpoints, error rows, funnels and counters.
    func testMergeOfRandomSplitEqualsRecordingEverythingInOneProcess() throws {
        var rng = SeededRandom(seed: 20261201)
        let percentiles = [0, 1, 10, 25, 50, 75, 90, 99, 99.9, 99.99, 100.0]
        for trial in 0..<12 {
            let shards = 1 + Int(rng.next() % 6), windows = 1 + Int(rng.next() % 12), n = Int(rng.next() % 2500)
            // Each shard's own clock starts somewhere else (another process); it began `late` windows
            // plus `extra` ms after the barrier (extra < half a window, so every window maps to one).
            // Shard 0 was there on time, so the merged run starts at the barrier like `all`.
            let late = (0..<shards).map { $0 == 0 ? 0 : Int(rng.next() % 3) }
            let extra = (0..<shards).map { $0 == 0 ? 0 : Int64(rng.next() % 400) }
            let clocks = (0..<shards).map { s in UInt64(1_000 + s * 77) * window }
            let parts = (0..<shards).map { Recorder(startNanos: clocks[$0]) }
            let singleStart: UInt64 = 5_000 * window
            let all = Recorder(startNanos: singleStart)
            for _ in 0..<n {
                let s = Int(rng.next() % UInt64(shards)), k = Int(rng.next() % UInt64(windows))
                // Within a window: in [1/4, 1/2) of it, so that with the shard's offset it stays in one window.
                let within = window / 4 + rng.next() % (window / 4)
                let local = UInt64(k) * window + within
                let global = UInt64(k + late[s]) * window + UInt64(extra[s]) * 1_000_000 + within
                let value = Int64(rng.lognormal(median: 20_000, sigma: 1.5))
                let metric = "m\(rng.next() % 3)"
                parts[s].recordValue(MetricName(metric), micros: value, at: clocks[s] + local)
                all.recordValue(MetricName(metric), micros: value, at: singleStart + global)
                // A request whose whole life is inside the same quarter of the window.
                let latency = UInt64(rng.next() % (window / 8))
                let status: Int? = rng.chance(0.1) ? 503 : (rng.chance(0.03) ? nil : 200)
                let endpoint = rng.chance(0.5) ? "GET /home" : "POST /sessions"
                for (r, at) in [(parts[s], clocks[s] + local), (all, singleStart + global)] {
                    r.recordRequest(endpoint, intended: at - latency, actual: at - latency, end: at, status: status,
                                    errorCode: status == 503 ? "unavailable" : (status == nil ? "timeout" : nil), message: nil,
                                    breakdown: nil)
                }
                if rng.chance(0.2) {
                    let done = rng.chance(0.7)
                    for r in [parts[s], all] {
                        r.journeyStarted("dailyQuest", cohort: "new")
                        r.journeyReached("dailyQuest", cohort: "new", step: "home")
                        if done { r.journeyReached("dailyQuest", cohort: "new", step: "complete") }
                        r.journeyEnded("dailyQuest", cohort: "new", outcome: done ? .completed : .abandoned,
                                       step: done ? "done" : "home", errorCode: nil, intended: 0, end: UInt64(value) * 1000)
                        r.count("users_started:x")
                    }
                }
            }
            let inputs = (0..<shards).map { s in
                ShardMerge.Input(source: "shard\(s)",
                                 results: parts[s].snapshot(meta(shard: s, of: shards, lateMillis: Int64(late[s]) * 1000 + extra[s])))
            }
            // Through JSON, as `fleet merge` reads them.
            let decoded = try inputs.map { ShardMerge.Input(source: $0.source, results: try RunResults.decode(try $0.results.encodedJSON())) }
            let merged = try ShardMerge.merge(decoded.shuffled(using: &rng))
            let aligned = all.snapshot(meta(shard: 0, of: 1))
            let label = "trial \(trial): \(shards) shards, \(windows) windows, \(n) values"
            XCTAssertEqual(merged.metrics, aligned.metrics, label)
            for (m, e) in zip(merged.metrics, aligned.metrics) {
                XCTAssertEqual(m.corrected.values(atPercentiles: percentiles), e.corrected.values(atPercentiles: percentiles), label)
                for (mw, ew) in zip(m.windows, e.windows) {
                    XCTAssertEqual(mw.index, ew.index, label)
                    XCTAssertEqual(mw.corrected.values(atPercentiles: percentiles), ew.corrected.values(atPercentiles: percentiles), label)
                }
            }
            XCTAssertEqual(merged.endpoints, aligned.endpoints, label)
            XCTAssertEqual(merged.errors, aligned.errors, label)
            XCTAssertEqual(merged.journeys, aligned.journeys, label)
            XCTAssertEqual(merged.counters, aligned.counters, label)
            XCTAssertEqual(merged.meta.shards, shards, label)
            XCTAssertEqual(merged.meta.shardRuns?.map(\.index), Array(0..<shards), label)
            XCTAssertNil(merged.meta.startCpuSeconds, "one process's start-up CPU is not the merged run's")
        }
    }

    func testShardsOfDifferentRunsAreRefusedNamingWhich() {
        func results(_ m: RunMetadata) -> RunResults { RunResults(meta: m) }
        func refusal(_ inputs: [(String, RunMetadata)], allowMissing: Bool = false) -> String {
            do {
                _ = try ShardMerge.merge(inputs.map { ShardMerge.Input(source: $0.0, results: results($0.1)) }, allowMissing: allowMissing)
                return "merged"
            } catch { return error.description }
        }
        let a = meta(shard: 0, of: 2), b = meta(shard: 1, of: 2)
        XCTAssertEqual(refusal([("a", a), ("b", meta(shard: 1, of: 2, profile: "q"))]),
                       "b: profile 'q' differs from a's 'p': not shards of one run")
        XCTAssertTrue(refusal([("a", a), ("b", meta(shard: 1, of: 2, digest: "d2"))]).hasPrefix("b: profile digest"))
        XCTAssertEqual(refusal([("a", a), ("b", meta(shard: 1, of: 2, seed: 8))]), "b: seed 8 differs from a's 7: not shards of one run")
        XCTAssertEqual(refusal([("a", a), ("b", meta(shard: 1, of: 3))]), "b: shard count 3 differs from a's 2: not shards of one run")
        XCTAssertEqual(refusal([("a", a), ("a2", a), ("b", b)]), "shard 0/2 given twice: a and a2")
        XCTAssertEqual(refusal([("a", a)]), "missing shard 1/2 of 2 (given 0/2); pass --allow-missing to merge a partial run")
        var single = a
        single.shard = nil
        XCTAssertTrue(refusal([("a", single), ("b", b)]).hasPrefix("a: not a shard"))
        XCTAssertEqual(refusal([("a", a), ("b", b)]), "merged")
        XCTAssertEqual(refusal([("b", b)], allowMissing: true), "merged")
    }

    /// A shard that started after the barrier by more than the lag bound, or whose own lag was
    /// over it, is named in the merged run's "fell behind" reasons even when the others kept up.
    func testALaggingOrLateShardIsNamed() throws {
        let onTime = Recorder(startNanos: 0), late = Recorder(startNanos: 0), slow = Recorder(startNanos: 0)
        for i in 0..<100 {
            let at = UInt64(i) * 10_000_000
            onTime.recordLatency(MetricName("x"), intended: at, actual: at + 1_000_000, end: at + 2_000_000)
            late.recordLatency(MetricName("x"), intended: at, actual: at + 1_000_000, end: at + 2_000_000)
            slow.recordLatency(MetricName("x"), intended: at, actual: at + 400_000_000, end: at + 401_000_000)  // 400 ms late
        }
        let merged = try ShardMerge.merge([
            .init(source: "0", results: onTime.snapshot(meta(shard: 0, of: 3))),
            .init(source: "1", results: late.snapshot(meta(shard: 1, of: 3, lateMillis: 2_500))),
            .init(source: "2", results: slow.snapshot(meta(shard: 2, of: 3))),
        ])
        let reasons = merged.generatorBehindReasons()
        XCTAssertFalse(reasons.contains { $0.hasPrefix("shard 0/3") }, "\(reasons)")
        XCTAssertTrue(reasons.contains { $0.hasPrefix("shard 1/3") && $0.contains("started 2500 ms after the start barrier") }, "\(reasons)")
        XCTAssertTrue(reasons.contains { $0.hasPrefix("shard 2/3") && $0.contains("scheduling lag p99") }, "\(reasons)")
        XCTAssertEqual(merged.meta.runId, "p-20261129-000000-7")
        XCTAssertEqual(merged.meta.startedAt, RFC3339.format(millis: barrier))
        XCTAssertTrue(merged.meta.notes.contains { $0.hasPrefix("generator fell behind: shard 1/3") }, "\(merged.meta.notes)")
    }

    /// Shards on one machine read one host-steal counter: the merge counts that machine once (the
    /// larger reading, as each counts from its own start) and adds machines. Shards without a boot
    /// id are machines of their own, as before the id was recorded.
    func testHostStealCountsEachMachineOnce() throws {
        func shard(_ i: Int, late: Int64, boot: String?, steal: [Double]) -> ShardMerge.Input {
            var m = meta(shard: i, of: 3, lateMillis: late)
            m.shard?.bootId = boot
            var r = RunResults(meta: m, windowNanos: window)
            r.health = steal.enumerated().map { w, s in
                HealthSample(window: w, activeUsers: 1, inFlight: 0, cpuSeconds: 0, rssBytes: 1, hostStealSeconds: s)
            }
            return ShardMerge.Input(source: "shard-\(i).json", results: r)
        }
        // Shards 0 and 1 share a VM (shard 1 started 2 s late, so its counter began later and its
        // window 0 is the merged window 2); shard 2 had a machine of its own.
        let sameVM = [0.0, 1, 2, 3, 4, 5], late = [0.0, 0.5, 1.0, 1.5], own = [0.0, 0.1, 0.2, 0.3, 0.4, 0.5]
        let merged = try ShardMerge.merge([shard(0, late: 0, boot: "vm-a", steal: sameVM), shard(1, late: 2000, boot: "vm-a", steal: late),
                                           shard(2, late: 0, boot: "vm-b", steal: own)])
        let steal = merged.health.sorted { $0.window < $1.window }.map { try? XCTUnwrap($0.hostStealSeconds) }
        XCTAssertEqual(steal.count, 6)
        for (w, s) in steal.enumerated() { XCTAssertEqual(s ?? -1, 1.1 * Double(w), accuracy: 1e-9, "window \(w)") }
        XCTAssertTrue(try XCTUnwrap(merged.hostStealNote()).contains("5.5 s"), merged.hostStealNote() ?? "")

        // A machine whose shard stopped two windows early still counts what it lost by then.
        let early = try ShardMerge.merge([shard(0, late: 0, boot: "vm-a", steal: [0, 1, 2, 3]), shard(1, late: 0, boot: "vm-b", steal: own),
                                          shard(2, late: 0, boot: "vm-c", steal: own)])
        let carried = early.health.sorted { $0.window < $1.window }.map { $0.hostStealSeconds ?? -1 }
        XCTAssertEqual(carried.count, 6)
        for (s, expected) in zip(carried, [0, 1.2, 2.4, 3.6, 3.8, 4.0]) { XCTAssertEqual(s, expected, accuracy: 1e-9) }

        XCTAssertEqual(ShardSummary.machines(of: try XCTUnwrap(merged.meta.shardRuns)), ["machine 1", "machine 1", "machine 2"])

        let unknown = try ShardMerge.merge([shard(0, late: 0, boot: nil, steal: sameVM), shard(1, late: 2000, boot: nil, steal: late),
                                            shard(2, late: 0, boot: "vm-b", steal: own)])
        let summed = unknown.health.sorted { $0.window < $1.window }.map { $0.hostStealSeconds ?? -1 }
        XCTAssertEqual(summed.count, 6)
        for (s, expected) in zip(summed, [0, 1.1, 2.2, 3.8, 5.4, 7.0]) { XCTAssertEqual(s, expected, accuracy: 1e-9) }
        XCTAssertEqual(ShardSummary.machines(of: try XCTUnwrap(unknown.meta.shardRuns)), ["machine 1", "machine 2", "machine 3"],
                       "a shard without an id is a machine of its own")
    }
}
