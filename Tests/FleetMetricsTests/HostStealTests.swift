import FleetCore
import Foundation
import XCTest
@testable import FleetMetrics

/// Host steal (CPU the hypervisor gave to other guests) in the health samples: read from
/// /proc/stat, carried through results.json and shard merges, and noted when it was large enough
/// to have delayed the bench.
final class HostStealTests: XCTestCase {
    private let procStat = """
        cpu  748800 2118 193632 3282510 14482 0 45793 141098 0 0
        cpu0 374000 1000 96000 1641000 7000 0 22000 70549 0 0
        intr 123456
        """

    func testStealIsTheEighthColumnOfTheCPULineInSeconds() {
        XCTAssertEqual(ProcessStats.stealSeconds(procStat: procStat, ticksPerSecond: 100)!, 1410.98, accuracy: 1e-9)
        XCTAssertEqual(ProcessStats.stealSeconds(procStat: procStat, ticksPerSecond: 1000)!, 141.098, accuracy: 1e-9)
    }

    func testAKernelWithoutTheStealColumnSaysNothing() {
        XCTAssertNil(ProcessStats.stealSeconds(procStat: "cpu  1 2 3 4 5 6 7\nintr 9\n", ticksPerSecond: 100))
        XCTAssertNil(ProcessStats.stealSeconds(procStat: "intr 9\n", ticksPerSecond: 100))
        XCTAssertNil(ProcessStats.stealSeconds(procStat: "cpu  1 2 3 4 5 6 7 x\n", ticksPerSecond: 100))
    }

    func testThisMachineReportsAStealFigure() throws {
        #if os(Linux)
        let steal = try XCTUnwrap(ProcessStats.hostStealSeconds(), "Linux has had the steal column since 2.6.11")
        XCTAssertGreaterThanOrEqual(steal, 0)
        #endif
    }

    /// Results with one health sample per second whose cumulative steal is `steal[i]`.
    private func results(_ steal: [Double?]) -> RunResults {
        var r = Recorder(startNanos: 0).snapshot(RunMetadata(runId: "r", profile: "p", seed: 1, target: "t", startedAt: "s"))
        r.health = steal.enumerated().map { i, s in
            HealthSample(window: i, activeUsers: 1, inFlight: 0, cpuSeconds: 0, rssBytes: 1, hostStealSeconds: s)
        }
        return r
    }

    func testNoNoteWhenTheHostTookLittle() {
        XCTAssertNil(results([0, 0.01, 0.02, 0.03, 0.04]).hostStealNote())
        XCTAssertNil(results([nil, nil, nil]).hostStealNote(), "samples that do not say give no note")
        XCTAssertNil(results([]).hostStealNote())
    }

    func testOneBadWindowIsNotedWithItsShareAndTime() throws {
        let note = try XCTUnwrap(results([0, 0, 0.3, 0.31]).hostStealNote())
        XCTAssertTrue(note.contains("gave 0.3 s"), note)
        XCTAssertTrue(note.contains("at most 30 % of a core in one window, at 2 s"), note)
    }

    func testStealSpreadThinButLongIsNotedByItsTotal() throws {
        let steal = (0..<300).map { Double($0) * 0.004 }  // 0.4 % of a core for 300 s: 1.2 s
        let note = try XCTUnwrap(results(steal).hostStealNote())
        XCTAssertTrue(note.contains("gave 1.2 s"), note)
    }

    func testAResultsFileWithoutStealStillLoadsAndOneWithItKeepsIt() throws {
        let old = #"{"window":3,"activeUsers":2,"inFlight":1,"cpuSeconds":0.5,"rssBytes":1024}"#
        let decoded = try JSONDecoder().decode(HealthSample.self, from: Data(old.utf8))
        XCTAssertNil(decoded.hostStealSeconds)
        XCTAssertEqual(decoded.window, 3)
        let with = HealthSample(window: 1, activeUsers: 1, inFlight: 0, cpuSeconds: 0, rssBytes: 1, hostStealSeconds: 0.25)
        let back = try JSONDecoder().decode(HealthSample.self, from: JSONEncoder().encode(with))
        XCTAssertEqual(back.hostStealSeconds, 0.25)
    }

    func testShardsOnTwoHostsAddTheirSteal() {
        var a = results([0, 0.1, 0.2])
        a.merge(results([0, 0.5, 1.0]))
        let merged = a.health.map { $0.hostStealSeconds ?? -1 }
        XCTAssertEqual(merged.count, 3)
        for (got, want) in zip(merged, [0, 0.6, 1.2]) { XCTAssertEqual(got, want, accuracy: 1e-12, "window by window: \(merged)") }
        var b = results([0, 0.1])
        b.merge(results([nil, nil]))
        XCTAssertEqual(b.health.map(\.hostStealSeconds), [0, 0.1], "a shard that does not say adds nothing")
    }
}
