import FleetCore
import XCTest
@testable import FleetStats

final class ChangePointTests: XCTestCase {
    /// A nightly p99 series: lognormal noise (≈ 5 % spread), now and then a noisy night 15 % up.
    func history(seed: UInt64, stepAt: Int?, step: Double = 0.15, count: Int = 30) -> [Double] {
        var rng = SeededRandom(seed: seed)
        return (0..<count).map { i in
            var v = 4200 * exp(0.05 * rng.normal())
            if rng.chance(0.05) { v *= 1.15 }
            if let s = stepAt, i >= s { v *= 1 + step }
            return v
        }
    }

    func testAFifteenPercentStepAtRunTwentyIsFoundThere() {
        for seed in UInt64(1)...5 {
            let cps = EDivisive().changePoints(history(seed: seed, stepAt: 20))
            XCTAssertEqual(cps.count, 1, "seed \(seed): \(cps)")
            guard let cp = cps.first else { continue }
            XCTAssertTrue((19...21).contains(cp.index), "seed \(seed): at \(cp.index)")
            XCTAssertLessThanOrEqual(cp.pValue, 0.001)
            XCTAssertEqual(cp.relativeChange, 0.15, accuracy: 0.08, "seed \(seed)")
        }
    }

    func testAFlatHistoryHasNoChangePoint() {
        for seed in UInt64(11)...20 {
            XCTAssertEqual(EDivisive().changePoints(history(seed: seed, stepAt: nil)), [], "seed \(seed)")
        }
    }

    func testAStepUnderTheMinimumMagnitudeIsNotReported() {
        // A 3 % step with almost no noise is significant but smaller than the 5 % minimum.
        let x: [Double] = (0..<30).map { (i: Int) -> Double in
            let level: Double = i >= 15 ? 103 : 100
            return level + Double(i % 3) * 0.01
        }
        XCTAssertEqual(EDivisive().changePoints(x), [])
        XCTAssertEqual(EDivisive(minMagnitude: 0.01).changePoints(x).map(\.index), [15])
    }

    func testTwoStepsInALongHistoryAreBothFound() {
        var x = history(seed: 7, stepAt: nil, count: 60)
        for i in 20..<60 { x[i] *= 1.2 }
        for i in 45..<60 { x[i] *= 0.75 }
        let idx = EDivisive().changePoints(x).map(\.index)
        XCTAssertEqual(idx.count, 2, "\(idx)")
        XCTAssertTrue(idx.contains { (19...21).contains($0) }, "\(idx)")
        XCTAssertTrue(idx.contains { (44...46).contains($0) }, "\(idx)")
    }

    func testTooShortASeriesHasNone() {
        XCTAssertEqual(EDivisive().changePoints([1, 2, 3, 100, 100]), [])
    }
}

import Foundation
