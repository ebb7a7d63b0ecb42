import FleetMetrics
import XCTest
@testable import FleetStats

final class ComparerTests: XCTestCase {
    func testSameDistributionIsSameEverywhere() throws {
        for pair in 0..<5 {
            let a = Synthetic.run(id: "a", seed: UInt64(100 + pair), medianMs: 1000)
            let b = Synthetic.run(id: "b", seed: UInt64(200 + pair), medianMs: 1000)
            let c = try Comparer().compare(base: a, new: b)
            let rows = try XCTUnwrap(c.metrics.first { $0.name == "assessment_turnaround" })
            XCTAssertEqual(rows.percentiles.map(\.percentile), [50, 90, 99])
            for p in rows.percentiles {
                XCTAssertEqual(p.verdict, .same, "pair \(pair) p\(p.percentile): \(p)")
                let low = try XCTUnwrap(p.low), high = try XCTUnwrap(p.high)
                XCTAssertLessThanOrEqual(low, p.ratio + 1e-9)
                XCTAssertGreaterThanOrEqual(high, p.ratio - 1e-9)
            }
            XCTAssertFalse(c.regressed, c.regressions.joined(separator: "\n"))
        }
    }

    func testThirtyPercentSlowerIsWorseAndFasterIsBetter() throws {
        let base = Synthetic.run(id: "a", seed: 1, medianMs: 1000)
        let slow = Synthetic.run(id: "b", seed: 2, medianMs: 1300)
        let c = try Comparer().compare(base: base, new: slow)
        let rows = try XCTUnwrap(c.metrics.first { $0.name == "assessment_turnaround" })
        for p in rows.percentiles where p.percentile != 90 { XCTAssertEqual(p.verdict, .worse, "\(p)") }
        XCTAssertTrue(c.regressed)
        XCTAssertTrue(c.regressions[0].hasPrefix("assessment_turnaround p50"), c.regressions[0])
        let back = try Comparer().compare(base: slow, new: base)
        XCTAssertEqual(back.metrics.first { $0.name == "assessment_turnaround" }?.percentiles[0].verdict, .better)
        XCTAssertFalse(back.regressed)
    }

    func testAChangeSmallerThanTheMinimumEffectIsTheSame() throws {
        // 3 % slower with 40 samples a window over 120 windows: real, but under the 5 % minimum.
        let base = Synthetic.run(id: "a", seed: 3, medianMs: 1000, windows: 120, perWindow: 40)
        let new = Synthetic.run(id: "b", seed: 4, medianMs: 1030, windows: 120, perWindow: 40)
        let p50 = try XCTUnwrap(Comparer().compare(base: base, new: new).metrics.first?.percentiles.first)
        XCTAssertEqual(p50.verdict, .same, "\(p50)")
        let strict = try XCTUnwrap(Comparer(minEffect: 0).compare(base: base, new: new).metrics.first?.percentiles.first)
        XCTAssertGreaterThan(strict.high ?? 0, 1, "\(strict)")
    }

    func testAFewMillisecondsOnAFastFigureIsUnderTheAbsoluteFloor() throws {
        // 2 ms → 3 ms is +50 % with a tight interval, but 1 ms: the same with the 10 ms floor.
        let base = Synthetic.run(id: "a", seed: 21, medianMs: 2, sigma: 0.2)
        let new = Synthetic.run(id: "b", seed: 22, medianMs: 3, sigma: 0.2)
        let floored = try XCTUnwrap(Comparer().compare(base: base, new: new).metrics.first?.percentiles.first)
        XCTAssertEqual(floored.verdict, .same, "\(floored)")
        XCTAssertGreaterThan(floored.low ?? 0, 1.05, "the change itself is clear")
        let strict = try XCTUnwrap(Comparer(minAbsoluteMs: 0).compare(base: base, new: new).metrics.first?.percentiles.first)
        XCTAssertEqual(strict.verdict, .worse)
    }

    func testDifferentProfileHashIsRefusedUnlessForced() throws {
        let a = Synthetic.run(id: "a", seed: 1, medianMs: 1000, hash: "aaaa")
        let b = Synthetic.run(id: "b", seed: 2, medianMs: 1000, hash: "bbbb")
        XCTAssertThrowsError(try Comparer().compare(base: a, new: b)) { e in
            XCTAssertTrue("\(e)".contains("profile hash"), "\(e)")
        }
        let forced = try Comparer().compare(base: a, new: b, force: true)
        XCTAssertEqual(forced.warnings.count, 1)
        var c = b
        c.meta.profileHash = "aaaa"
        c.meta.target = "http://127.0.0.1:9999"
        XCTAssertThrowsError(try Comparer().compare(base: a, new: c)) { e in XCTAssertTrue("\(e)".contains("target"), "\(e)") }
        // Two embedded stacks on different ports are the same target.
        c.meta.target = "embedded (http://127.0.0.1:1)"
        XCTAssertNoThrow(try Comparer().compare(base: a, new: c))
    }

    func testErrorRatesWithTheTwoProportionTest() throws {
        let t = ProportionTest(successes: 10, of: 1000, versus: 30, of: 1000)
        XCTAssertEqual(t.pValue, 0.0014, accuracy: 0.0003)
        XCTAssertEqual(ProportionTest(successes: 10, of: 1000, versus: 12, of: 1000).pValue, 0.67, accuracy: 0.02)
        let base = Synthetic.run(id: "a", seed: 1, medianMs: 1000, errors: (10, 5000))
        let worse = Synthetic.run(id: "b", seed: 2, medianMs: 1000, errors: (60, 5000))
        let same = Synthetic.run(id: "c", seed: 3, medianMs: 1000, errors: (13, 5000))
        XCTAssertEqual(try Comparer().compare(base: base, new: worse).rates.first?.verdict, .worse)
        XCTAssertEqual(try Comparer().compare(base: base, new: same).rates.first?.verdict, .same)
        XCTAssertEqual(try Comparer().compare(base: worse, new: base).rates.first?.verdict, .better)
    }

    func testAResampleOfEveryWindowOnceGivesTheRunsPercentile() {
        let r = Synthetic.run(id: "a", seed: 9, medianMs: 700)
        let m = r.metrics[0]
        let d = WindowedDistribution(m.windows.map(\.corrected))
        var scratch = [Int64](repeating: 0, count: d.values.count)
        let got = d.percentiles([50, 90, 99], of: Array(0..<m.windows.count), counts: &scratch)
        XCTAssertEqual(got, m.corrected.values(atPercentiles: [50, 90, 99]))
        XCTAssertTrue(scratch.allSatisfy { $0 == 0 })
    }

    func testBlocksCoverTheRequestedCount() {
        var rng = SeededRandom(seed: 5)
        for n in [2, 3, 10, 61, 180] {
            let picks = BlockBootstrap.blockResample(n, &rng)
            XCTAssertEqual(picks.count, n)
            XCTAssertTrue(picks.allSatisfy { (0..<n).contains($0) })
        }
    }
}

import FleetCore
