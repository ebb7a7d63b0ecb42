import FleetCore
import Foundation
import XCTest
@testable import FleetMetrics

final class HistogramTests: XCTestCase {
    private let percentiles: [Double] = [0, 0.1, 1, 5, 10, 25, 33.3, 50, 66.6, 75, 90, 95, 99, 99.5, 99.9, 99.99, 100]

    /// Lognormal microsecond latencies, like a service with a long tail.
    private func lognormalSample(_ n: Int, seed: UInt64, median: Double = 40_000, sigma: Double = 1.2) -> [Int64] {
        var rng = SeededRandom(seed: seed)
        return (0..<n).map { _ in Int64(rng.lognormal(median: median, sigma: sigma)) }
    }

    private func exactPercentile(_ sorted: [Int64], _ p: Double) -> Int64 {
        let rank = max(1, min(sorted.count, Int((p / 100 * Double(sorted.count)).rounded(.up))))
        return sorted[rank - 1]
    }

    func testPercentilesMatchSortedRawDataWithinThreeSignificantDigits() {
        for seed in [1, 2, 3] as [UInt64] {
            let data = lognormalSample(50_000, seed: seed)
            var h = Histogram()
            for v in data { h.record(v) }
            let sorted = data.sorted()
            for p in percentiles {
                let exact = exactPercentile(sorted, p)
                let got = h.value(atPercentile: p)
                // The reported value is the top of the bin holding the exact sample: never below it,
                // and above it by less than one part in a thousand (3 significant digits).
                XCTAssertGreaterThanOrEqual(got, exact, "p\(p) seed \(seed)")
                XCTAssertLessThanOrEqual(Double(got - exact), Double(exact) / 1000, "p\(p) seed \(seed): \(got) vs \(exact)")
            }
            XCTAssertEqual(h.count, Int64(data.count))
            XCTAssertEqual(h.min, sorted.first)
            XCTAssertEqual(h.max, sorted.last)
            XCTAssertEqual(h.mean, Double(data.reduce(0, +)) / Double(data.count), accuracy: 1e-6)
            XCTAssertEqual(h.values(atPercentiles: percentiles), percentiles.map { h.value(atPercentile: $0) })
        }
    }

    func testEveryValueFallsInsideItsBinAcrossTheWholeRange() {
        let layout = Histogram().layout
        var values: [Int64] = Array(0...5000)
        var v: Int64 = 5000
        while v < 3_600_000_000 { values.append(v); values.append(v + 1); values.append(v * 2 - 1); v = v * 3 / 2 }
        values.append(3_600_000_000)
        var lastIndex = -1
        for value in values.sorted() where value <= 3_600_000_000 {
            let i = layout.index(of: value)
            XCTAssertLessThan(i, layout.countsLength, "value \(value)")
            XCTAssertGreaterThanOrEqual(i, lastIndex, "index must not decrease with the value")
            lastIndex = i
            XCTAssertLessThanOrEqual(layout.lowestEquivalent(ofIndex: i), value)
            XCTAssertGreaterThanOrEqual(layout.highestEquivalent(ofIndex: i), value)
            let width = layout.highestEquivalent(ofIndex: i) - layout.lowestEquivalent(ofIndex: i) + 1
            XCTAssertLessThanOrEqual(Double(width), max(1, Double(value) / 1000), "bin too wide at \(value)")
        }
        XCTAssertEqual(layout.subBucketCount, 2048)
    }

    func testMergeEqualsRecordingBothStreamsIntoOne() {
        let a = lognormalSample(20_000, seed: 7), b = lognormalSample(30_000, seed: 8, median: 3_000, sigma: 0.4)
        var ha = Histogram(), hb = Histogram(), both = Histogram()
        for v in a { ha.record(v); both.record(v) }
        for v in b { hb.record(v); both.record(v) }
        var merged = ha
        merged.merge(hb)
        XCTAssertEqual(merged, both)
        XCTAssertEqual(merged.values(atPercentiles: percentiles), both.values(atPercentiles: percentiles))

        // Sparse + sparse (decoded or compacted histograms) merge to the same content.
        var sparse = ha.compacted()
        sparse.merge(hb.compacted())
        XCTAssertTrue(sparse.isSparse)
        XCTAssertEqual(sparse, both)
        // Recording into a sparse histogram switches it back to dense and keeps the counts.
        sparse.record(123_456)
        both.record(123_456)
        XCTAssertEqual(sparse, both)
    }

    func testClampsOutOfRangeValuesAndCountsThem() {
        var h = Histogram(highest: 1_000_000)
        h.record(-5)
        h.record(2_000_000, count: 3)
        h.record(500)
        XCTAssertEqual(h.count, 5)
        XCTAssertEqual(h.clamped, 4)
        XCTAssertEqual(h.min, 0)
        XCTAssertEqual(h.max, 1_000_000)
        XCTAssertEqual(h.value(atPercentile: 100), 1_000_000)
        XCTAssertEqual(h.value(atPercentile: 20), 0)
    }

    /// A window histogram records sparsely (`sparseRecording`) and turns dense past its sample
    /// bound; in both stretches it holds what a dense one holds, bin for bin, and answers the
    /// same percentiles, which stay within the layout's precision of the sorted samples.
    func testSparseRecordingHoldsWhatDenseRecordingHolds() {
        let values = lognormalSample(5_000, seed: 23) + [0, -5, 4_000_000_000, 1, 1]
        var dense = Histogram(), sparse = Histogram.sparseRecording()
        for (i, v) in values.enumerated() {
            dense.record(v, count: i % 7 == 0 ? 3 : 1)
            sparse.record(v, count: i % 7 == 0 ? 3 : 1)
            if i == 20 {
                XCTAssertTrue(sparse.isSparse, "a few dozen samples stay sparse")
                XCTAssertEqual(sparse, dense)
                XCTAssertEqual(sparse.values(atPercentiles: percentiles), dense.values(atPercentiles: percentiles))
            }
            if i == 45 {
                XCTAssertTrue(sparse.isSparse, "\(sparse.count) samples stay sparse")
                XCTAssertGreaterThan(sparse.sparseIndices.count, 30, "over many bins")
                XCTAssertEqual(sparse, dense)
            }
        }
        XCTAssertFalse(sparse.isSparse, "past \(Histogram.sparseRecordingSamples) samples it records densely")
        XCTAssertEqual(sparse, dense)
        XCTAssertEqual(sparse.count, dense.count)
        XCTAssertEqual(sparse.sum, dense.sum)
        XCTAssertEqual(sparse.clamped, 2)
        XCTAssertEqual(sparse.values(atPercentiles: percentiles), dense.values(atPercentiles: percentiles))
        // Against the samples themselves (each recorded 3 times when i % 7 == 0).
        let expanded = values.enumerated().flatMap { i, v -> [Int64] in
            Array(repeating: min(max(v, 0), sparse.highest), count: i % 7 == 0 ? 3 : 1)
        }.sorted()
        for p in percentiles {
            let exact = exactPercentile(expanded, p)
            XCTAssertEqual(Double(sparse.value(atPercentile: p)), Double(exact), accuracy: max(1, Double(exact) * 0.001), "p\(p)")
        }
        // A busy window of few bins turns dense after `sparseRecordingSamples` samples too.
        var busy = Histogram.sparseRecording(), busyDense = Histogram()
        for i in 0..<Int(Histogram.sparseRecordingSamples) + 10 {
            busy.record(Int64(1_000 + i % 20)); busyDense.record(Int64(1_000 + i % 20))
            if i == 50 { XCTAssertTrue(busy.isSparse) }
        }
        XCTAssertFalse(busy.isSparse, "20 bins, but past the sample bound")
        XCTAssertEqual(busy, busyDense)
        // A sparse histogram that merges and compacts like any other.
        var merged = Histogram.sparseRecording()
        merged.record(10)
        merged.merge(sparse)
        var both = dense
        both.record(10)
        XCTAssertEqual(merged, both)
    }

    func testEmptyHistogramAnswersZero() {
        let h = Histogram()
        XCTAssertEqual(h.value(atPercentile: 99), 0)
        XCTAssertEqual(h.min, 0)
        XCTAssertEqual(h.max, 0)
        XCTAssertEqual(h.mean, 0)
        XCTAssertEqual(h, Histogram().compacted())
    }

    func testJSONRoundTripIsExactAndStable() throws {
        var h = Histogram()
        for v in lognormalSample(10_000, seed: 11) { h.record(v) }
        h.record(-1)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data = try encoder.encode(h)
        let back = try JSONDecoder().decode(Histogram.self, from: data)
        XCTAssertEqual(back, h)
        XCTAssertEqual(back.values(atPercentiles: percentiles), h.values(atPercentiles: percentiles))
        XCTAssertEqual(try encoder.encode(back), data, "encoding must not depend on the storage form")
        // Compact: a few bytes per bin, not a JSON number list.
        XCTAssertLessThan(data.count, 250 + h.bins().count * 6)
        // The plain form (hand-written fixtures) decodes to the same histogram.
        var plain = Histogram()
        plain.record(3); plain.record(3); plain.record(2_000_000)
        let plainJSON = #"{"lowest":1,"highest":3600000000,"digits":3,"count":3,"sum":2000006,"min":3,"max":2000000,"clamped":0,"bins":[3,2,"#
            + "\(plain.layout.index(of: 2_000_000)),1]}"
        XCTAssertEqual(try JSONDecoder().decode(Histogram.self, from: Data(plainJSON.utf8)), plain)
    }

    func testDecodingRejectsInconsistentHistograms() {
        let cases: [(String, String)] = [
            (#"{"lowest":1,"highest":3600000000,"digits":3,"count":3,"sum":6,"min":1,"max":3,"clamped":0,"bins":[1,1,3,1]}"#, "the bins hold 2"),
            (#"{"lowest":1,"highest":3600000000,"digits":3,"count":2,"sum":4,"min":1,"max":3,"clamped":0,"bins":[3,1,1,1]}"#, "indices must increase"),
            (#"{"lowest":1,"highest":3600000000,"digits":3,"count":1,"sum":1,"min":1,"max":1,"clamped":0,"bins":[99999999,1]}"#, "outside"),
            (#"{"lowest":1,"highest":3600000000,"digits":9,"count":0,"sum":0,"min":0,"max":0,"clamped":0,"bins":[]}"#, "digits"),
        ]
        let packed: [(String, String)] = [
            (#"{"lowest":1,"highest":3600000000,"digits":3,"count":1,"sum":1,"min":1,"max":1,"clamped":0,"bins":"!!"}"#, "not base64url"),
            (#"{"lowest":1,"highest":3600000000,"digits":3,"count":1,"sum":1,"min":1,"max":1,"clamped":0,"bins":"gA"}"#, "truncated"),
            // Pairs (1, 1), (0, 1): the same index twice.
            (#"{"lowest":1,"highest":3600000000,"digits":3,"count":2,"sum":2,"min":1,"max":1,"clamped":0,"bins":"AQEAAQ"}"#, "indices must increase"),
        ]
        for (json, expected) in cases + packed {
            XCTAssertThrowsError(try JSONDecoder().decode(Histogram.self, from: Data(json.utf8))) { error in
                XCTAssertTrue("\(error)".contains(expected), "\(error) should mention '\(expected)'")
            }
        }
    }

    func testMergingADifferentLayoutKeepsCountAndExtremes() {
        var coarse = Histogram(significantDigits: 2)
        for v in lognormalSample(5_000, seed: 3) { coarse.record(v) }
        var fine = Histogram()
        fine.record(1_000)
        fine.merge(coarse)
        XCTAssertEqual(fine.count, 5_001)
        XCTAssertEqual(fine.sum, coarse.sum + 1_000)
        XCTAssertEqual(fine.max, coarse.max)
        XCTAssertEqual(fine.min, min(1_000, coarse.min))
        // Within the coarse layout's precision (2 digits).
        let p50 = Double(fine.value(atPercentile: 50)), truth = Double(coarse.value(atPercentile: 50))
        XCTAssertEqual(p50, truth, accuracy: truth / 50)
    }
}

extension HistogramTests {
    func testBinsListEveryRecordedValueInOrder() {
        var h = Histogram()
        for v: Int64 in [5, 5, 2047, 2048, 2049, 1_000_000, 1_000_001] { h.record(v) }
        let bins = h.bins()
        XCTAssertEqual(bins.reduce(0) { $0 + $1.count }, 7)
        XCTAssertEqual(bins.first, HistogramBin(lowestValue: 5, highestValue: 5, count: 2))
        XCTAssertEqual(bins.map(\.lowestValue), bins.map(\.lowestValue).sorted())
        // 2048 and 2049 share a 2-wide bin; 1 000 000 and 1 000 001 a 512-wide one.
        XCTAssertTrue(h.areEquivalent(2048, 2049))
        XCTAssertFalse(h.areEquivalent(2047, 2048))
        XCTAssertTrue(h.areEquivalent(1_000_000, 1_000_001))
        XCTAssertEqual(bins.last?.count, 2)
        XCTAssertTrue(bins.last!.lowestValue <= 1_000_000 && bins.last!.highestValue >= 1_000_001)
        XCTAssertEqual(bins.last!.highestValue - bins.last!.lowestValue + 1, 512)
    }
    /// The dense form allocates only the pages (half-buckets of indices) that values reached,
    /// and keeps every count when later values fall below or above them, when it merges another
    /// dense or sparse histogram lying elsewhere, and when it compacts.
    func testDenseRangeFollowsTheValuesWhereverTheyFall() {
        var rng = SeededRandom(seed: 41)
        // Middle, low and high values, in pages apart from each other.
        let mid = (0..<3_000).map { _ in 15_000 + Int64(rng.next() % 25_000) }
        let low = (0..<500).map { _ in Int64(rng.next() % 3_000) }
        let high = (0..<500).map { _ in 900_000 + Int64(rng.next() % 300_000) }
        var h = Histogram()
        for v in mid { h.record(v) }
        // 15-40 ms spans indices ~4,950-6,370: the pages holding those, ~1,500 counts, not the
        // 6,400 from index 0 up.
        let allocated = h.pages.indices.filter { !h.pages[$0].isEmpty }
        XCTAssertEqual(Set(allocated), Set(mid.map { h.layout.index(of: $0) >> h.layout.pageMagnitude }))
        XCTAssertLessThan(allocated.count * h.layout.pageSize, h.layout.index(of: 40_000) / 3)
        for v in low { h.record(v) }
        for v in high { h.record(v) }
        let all = mid + low + high
        assertHolds(h, exactly: all)

        // Dense into dense and sparse into dense, each lying below, above and inside the other.
        var a = Histogram(), b = Histogram(), c = Histogram()
        for v in mid { a.record(v) }
        for v in low { b.record(v) }
        for v in high { c.record(v) }
        var ab = a; ab.merge(b); ab.merge(c)
        assertHolds(ab, exactly: all)
        var cb = c; cb.merge(b); cb.merge(a)
        assertHolds(cb, exactly: all)
        var sparseInto = a; sparseInto.merge(b.compacted()); sparseInto.merge(c.compacted())
        assertHolds(sparseInto, exactly: all)
        var densified = c.compacted(); densified.merge(a); densified.merge(b)
        assertHolds(densified, exactly: all)
        assertHolds(ab.compacted(), exactly: all)
    }

    /// Every bin of `h` holds the number of `values` whose layout index is that bin's, and the
    /// percentiles are within 3 significant digits of the sorted values.
    private func assertHolds(_ h: Histogram, exactly values: [Int64], file: StaticString = #filePath, line: UInt = #line) {
        var expected: [Int: Int64] = [:]
        for v in values { expected[h.layout.index(of: v), default: 0] += 1 }
        let bins = h.nonZeroBins()
        XCTAssertEqual(bins.count, expected.count, "bins", file: file, line: line)
        for bin in bins where expected[bin.index] != bin.count {
            XCTFail("bin \(bin.index): \(bin.count), expected \(expected[bin.index] ?? 0)", file: file, line: line)
        }
        XCTAssertEqual(h.count, Int64(values.count), file: file, line: line)
        let sorted = values.sorted()
        for p in percentiles {
            let exact = exactPercentile(sorted, p), got = h.value(atPercentile: p)
            XCTAssertGreaterThanOrEqual(got, exact, "p\(p)", file: file, line: line)
            XCTAssertLessThanOrEqual(Double(got - exact), Double(exact) / 1000, "p\(p)", file: file, line: line)
        }
    }
}
