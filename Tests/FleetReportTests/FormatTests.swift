import XCTest
@testable import FleetReport

final class FormatTests: XCTestCase {
    func testNumbersForPeopleAndScripts() {
        XCTAssertEqual(Format.ms3(Int64(12_345)), "12.345")
        XCTAssertEqual(Format.ms3(Int64(7)), "0.007")
        XCTAssertEqual(Format.duration(micros: 420), "0.42 ms")
        XCTAssertEqual(Format.duration(micros: 12_340), "12.3 ms")
        XCTAssertEqual(Format.duration(micros: 850_000), "850 ms")
        XCTAssertEqual(Format.duration(micros: 1_234_000), "1.23 s")
        XCTAssertEqual(Format.duration(micros: 125_000_000), "2 min 5 s")
        XCTAssertEqual(Format.count(1_234_567), "1\u{2009}234\u{2009}567")
        XCTAssertEqual(Format.count(999), "999")
        XCTAssertEqual(Format.percent(0.00012), "0.012 %")
        XCTAssertEqual(Format.percent(0.25), "25.0 %")
        XCTAssertEqual(Format.tick(25_000), "25k")
        XCTAssertEqual(Format.tick(2.5), "2.5")
        XCTAssertEqual(Format.shortTime("2026-11-29T15:33:37.856Z"), "2026-11-29 15:33:37Z")
        XCTAssertEqual(Format.shortTime("yesterday"), "yesterday")
    }

    func testChangeSaysDirectionInWords() {
        XCTAssertEqual(Format.change(110, 100).text, "+10.0 % (worse)")
        XCTAssertEqual(Format.change(90, 100).text, "−10.0 % (better)")
        XCTAssertEqual(Format.change(110, 100, higherIsWorse: false).text, "+10.0 % (better)")
        XCTAssertNil(Format.change(100.2, 100).worse)
        XCTAssertEqual(Format.change(5, 0).text, "n/a")
    }

    func testEscapingForHTMLAndCSV() {
        XCTAssertEqual(Format.html("<a href=\"x\">&'"), "&lt;a href=&quot;x&quot;&gt;&amp;&#39;")
        XCTAssertEqual(Format.csv("plain"), "plain")
        XCTAssertEqual(Format.csv("a,b"), "\"a,b\"")
        XCTAssertEqual(Format.csv("say \"hi\"\nbye"), "\"say \"\"hi\"\"\nbye\"")
    }

    func testScalesPickReadableTicks() {
        XCTAssertEqual(ChartScale.niceStep(0.7), 1)
        XCTAssertEqual(ChartScale.niceStep(1.3), 2)
        XCTAssertEqual(ChartScale.niceStep(3.1), 5)
        XCTAssertEqual(ChartScale.niceStep(430), 500)
        let s = ChartScale(kind: .linear, values: [3, 97], pixelLow: 0, pixelHigh: 100, tickCount: 5, includeZero: true)
        XCTAssertEqual(s.ticks.map(\.label), ["0", "20", "40", "60", "80", "100"])
        XCTAssertEqual(s.pixel(50), 50, accuracy: 1e-9)
        let n = ChartScale(kind: .nines, values: [0, 2.4], pixelLow: 0, pixelHigh: 300)
        XCTAssertEqual(n.ticks.map(\.label), ["0%", "90%", "99%", "99.9%"])
        XCTAssertEqual(ChartScale.nines(ofPercentile: 99.9), 3, accuracy: 1e-9)
        let log = ChartScale(kind: .log10, values: [3, 4000], pixelLow: 0, pixelHigh: 400)
        XCTAssertEqual(log.ticks.map(\.label), ["1", "10", "100", "1000", "10k"])
        XCTAssertEqual(log.pixel(100), 200, accuracy: 1e-9)
    }

    func testChartsNameEverySeriesAndSayWhenEmpty() {
        let chart = LineChart(title: "t", xLabel: "time since start (s)", yLabel: "latency (ms)",
                              series: [ChartSeries(name: "p50", points: [(0, 1), (1, 2)]),
                                       ChartSeries(name: "p99", points: [(0, 5), (1, 9)])])
        let svg = chart.svg()
        XCTAssertTrue(svg.contains(">p50</text>") && svg.contains(">p99</text>"), "legend entries")
        XCTAssertTrue(svg.contains("stroke-dasharray=\"7 3\""), "the second series is dashed, not only coloured")
        XCTAssertTrue(svg.contains("time since start (s)") && svg.contains("latency (ms)"), "axis labels with units")
        XCTAssertEqual(svg.components(separatedBy: "<polyline").count - 1, 2)
        let empty = LineChart(title: "e", xLabel: "x", yLabel: "y", series: []).svg()
        XCTAssertTrue(empty.contains("no data recorded"))
    }
}
