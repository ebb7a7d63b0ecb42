import Dispatch
import Foundation
import Synchronization
import XCTest
@testable import FleetMetrics

/// Many threads recording at once into the recorder's shards: the merged results hold exactly
/// what was recorded, checked against figures computed here from the raw values.
final class RecorderConcurrencyTests: XCTestCase {
    private static let second: UInt64 = 1_000_000_000
    private let meta = RunMetadata(runId: "c1", profile: "concurrency", seed: 1, target: "http://127.0.0.1:1",
                                   startedAt: "2026-12-01T00:00:00Z")

    /// One sample, all in whole microseconds so that the recorder's µs arithmetic is exact.
    struct Sample {
        var endWindow: Int
        var end: UInt64
        var correctedMicros: Int64
        var lagMicros: Int64
        var failed: Bool
        var status: Int
    }

    /// Thread `t`'s `i`-th sample, from a hash of (t, i): latencies from 1 µs to ~2 s, heavy tailed.
    private static func sample(_ t: Int, _ i: Int, perThread: Int, start: UInt64) -> Sample {
        var h = UInt64(t) &* 0x9E37_79B9_7F4A_7C15 ^ UInt64(i) &* 0xBF58_476D_1CE4_E5B9
        h ^= h >> 31; h = h &* 0x94D0_49BB_1331_11EB; h ^= h >> 29
        let corrected = Int64(1 + (h % 1000)) << Int64((h >> 40) % 12)
        let lag = Int64((h >> 20) % 5000)
        // Even threads move through the windows in order; odd ones hop between them, so that
        // samples keep landing in windows that other threads have already left behind.
        let window = t % 2 == 0 ? (i * 6) / perThread : Int((h >> 50) % 6)
        let end = start + 10 * second + UInt64(window) * second + UInt64((h >> 8) % 999_999) * 1000
        return Sample(endWindow: 10 + window, end: end, correctedMicros: corrected, lagMicros: lag,
                      failed: (h >> 33) % 13 == 0, status: (h >> 35) % 10 == 0 ? 503 : 200)
    }

    /// The value at percentile p by the histogram's rank rule (rank ⌈p/100·n⌉), from sorted raw values.
    private func exactPercentile(_ sorted: [Int64], _ p: Double) -> Int64 {
        let rank = max(1, min(sorted.count, Int((p / 100 * Double(sorted.count)).rounded(.up))))
        return sorted[rank - 1]
    }

    private func assertMatches(_ h: Histogram, _ values: [Int64], _ what: String, file: StaticString = #filePath, line: UInt = #line) {
        let sorted = values.sorted()
        XCTAssertEqual(h.count, Int64(sorted.count), what, file: file, line: line)
        XCTAssertEqual(h.sum, sorted.reduce(0, +), what, file: file, line: line)
        XCTAssertEqual(h.min, sorted.first, what, file: file, line: line)
        XCTAssertEqual(h.max, sorted.last, what, file: file, line: line)
        for p in [1.0, 50, 90, 99, 99.9, 100] {
            let got = h.value(atPercentile: p), want = exactPercentile(sorted, p)
            XCTAssertTrue(h.areEquivalent(got, want), "\(what) p\(p): \(got) is not within the bin of \(want)", file: file, line: line)
            // ≥ 3 significant digits: the reported value is within 0.1 % of the exact one.
            XCTAssertLessThanOrEqual(abs(Double(got - want)), Double(want) / 1000 + 1, "\(what) p\(p)", file: file, line: line)
        }
    }

    func testManyThreadsMergeIntoExactCountsAndPercentiles() throws {
        let start: UInt64 = 1_000 * Self.second
        let r = Recorder(startNanos: start)
        let meta = self.meta, sample = Self.sample
        let threads = 8, perThread = 12_000
        let snapshotsTaken = Atomic<Int>(0)
        // One more worker than the recorders: it takes snapshots while the others record, and
        // checks that each one is whole (its windows add up to its totals).
        DispatchQueue.concurrentPerform(iterations: threads + 1) { t in
            if t == threads {
                for _ in 0..<5 {
                    let mid = r.snapshot(meta)
                    for m in mid.metrics + mid.endpoints.map(\.latency) {
                        var c = Histogram()
                        for w in m.windows { c.merge(w.corrected) }
                        XCTAssertEqual(c, m.corrected, "mid-run snapshot of \(m.name)")
                    }
                    snapshotsTaken.add(1, ordering: .relaxed)
                }
                return
            }
            for i in 0..<perThread {
                let s = sample(t, i, perThread, start)
                let actual = s.end - UInt64(s.correctedMicros - min(s.correctedMicros, s.lagMicros)) * 1000
                let lag = min(s.correctedMicros, s.lagMicros)
                let intended = actual - UInt64(lag) * 1000
                if i % 2 == 0 {
                    r.recordLatency(.assessmentTurnaround, intended: intended, actual: actual, end: s.end, failed: s.failed)
                } else {
                    r.recordRequest("GET /home", intended: intended, actual: actual, end: s.end, status: s.status,
                                    errorCode: s.status == 503 ? "unavailable" : nil, message: nil, breakdown: nil)
                }
                r.count("samples")
            }
        }
        XCTAssertEqual(snapshotsTaken.load(ordering: .relaxed), 5)

        // Expected figures, from the raw samples alone.
        var turnaround: [Int64] = [], turnaroundUncorrected: [Int64] = [], home: [Int64] = [], lags: [Int64] = []
        var turnaroundWindows: [Int: Int64] = [:], lagWindows: [Int: Int64] = [:]
        var failed: Int64 = 0, unavailable: Int64 = 0
        for t in 0..<threads {
            for i in 0..<perThread {
                let s = Self.sample(t, i, perThread: perThread, start: start)
                let lag = min(s.correctedMicros, s.lagMicros)
                lags.append(lag)
                let actual = s.end - UInt64(s.correctedMicros - lag) * 1000
                lagWindows[Int((actual - start) / Self.second), default: 0] += 1
                if i % 2 == 0 {
                    turnaround.append(s.correctedMicros)
                    turnaroundUncorrected.append(s.correctedMicros - lag)
                    turnaroundWindows[s.endWindow, default: 0] += 1
                    if s.failed { failed += 1 }
                } else {
                    home.append(s.correctedMicros)
                    if s.status == 503 { unavailable += 1 }
                }
            }
        }

        let res = r.snapshot(meta)
        let t = try XCTUnwrap(res.metric("assessment_turnaround"))
        assertMatches(t.corrected, turnaround, "turnaround corrected")
        assertMatches(t.uncorrected, turnaroundUncorrected, "turnaround uncorrected")
        XCTAssertEqual(t.errors, failed)
        XCTAssertEqual(Dictionary(uniqueKeysWithValues: t.windows.map { ($0.index, $0.corrected.count) }), turnaroundWindows)
        let lag = try XCTUnwrap(res.metric(MetricName.schedulingLag.rawValue))
        assertMatches(lag.corrected, lags, "scheduling lag")
        XCTAssertEqual(Dictionary(uniqueKeysWithValues: lag.windows.map { ($0.index, $0.corrected.count) }), lagWindows)
        let e = try XCTUnwrap(res.endpoint("GET /home"))
        assertMatches(e.latency.corrected, home, "GET /home")
        XCTAssertEqual(e.statuses, ["200": Int64(home.count) - unavailable, "503": unavailable])
        XCTAssertEqual(e.latency.errors, unavailable)
        XCTAssertEqual(res.errors.map(\.count), [unavailable])
        XCTAssertEqual(res.counters["samples"], Int64(threads * perThread))
        let live = r.liveTotals()
        XCTAssertEqual(live.requests, Int64(home.count))
        XCTAssertEqual(live.errors, unavailable)
        XCTAssertEqual(live.turnaroundCount, Int64(turnaround.count))
        XCTAssertTrue(t.corrected.areEquivalent(live.turnaroundP99Micros, exactPercentile(turnaround.sorted(), 99)))
    }
}
