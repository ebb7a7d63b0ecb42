import FleetCore
import Foundation
import FleetMetrics
import XCTest
@testable import FleetCLI

/// `fleet run --shard/--start-at/--source-address` flag errors and `fleet merge` through the
/// in-memory CLI: a merged report, its exit status, and refusals that name the file.
final class ShardCommandTests: XCTestCase {
    static let smoke = DataCommandTests.root.appendingPathComponent("profiles/smoke.json").path

    func testRunRejectsBadShardFlagsWithExit2() {
        for (flags, message) in [(["--shard", "4/4", "--target", "http://127.0.0.1:9"], "--shard: shard index must be in 0…3, got 4"),
                                 (["--shard", "1/4"], "--shard: the shards of one run need one target"),
                                 (["--shard", "one"], "--shard: expected i/N"),
                                 (["--start-at", "tomorrow"], "--start-at: expected an RFC 3339 time"),
                                 (["--source-address", "eth0"], "--source-address: expected an IP address")] {
            let c = CLITests.Capture()
            XCTAssertEqual(FleetCLI.run(["run", "--profile", Self.smoke] + flags, io: c.io), ExitCode.usage, "\(flags)")
            XCTAssertTrue(c.stderr.contains(message), "\(flags): \(c.stderr)")
        }
    }

    /// Two shard folders with a threshold that fails only on the whole: merged, re-judged (exit
    /// 99), one line per shard, the report's shard table; the same shard twice is refused.
    func testMergeWritesOneReportAndJudgesThresholdsOnTheWhole() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("cli-merge-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        var folders: [String] = []
        for i in 0..<2 {
            let r = Recorder(startNanos: 0)
            for k in 0..<60 { r.recordValue(MetricName("settlement"), micros: Int64(1000 + k), at: UInt64(k) * 10_000_000) }
            var m = RunMetadata(runId: "p-1-7-shard-\(i)-of-2", profile: "p", seed: 7, target: "http://127.0.0.1:9",
                                startedAt: "2026-12-01T20:00:00.000Z")
            m.shard = ShardInfo(index: i, count: 2, profileDigest: "abc", startAt: "2026-12-01T20:00:00.000Z",
                                sourceAddress: "127.0.0.\(i + 2)", bootId: "vm-a")
            // 60 samples per shard pass `count < 100`; the merged 120 do not.
            m.thresholds = [ThresholdVerdict(metric: "settlement", expression: "count < 100", passed: true, observed: 60,
                                             limit: 100, message: "on one shard")]
            let folder = dir.appendingPathComponent("p-1-7-shard-\(i)-of-2")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try r.snapshot(m).encodedJSON().write(to: folder.appendingPathComponent("results.json"))
            folders.append(folder.path)
        }
        let out = dir.appendingPathComponent("merged")
        let c = CLITests.Capture()
        XCTAssertEqual(FleetCLI.run(["merge"] + folders + ["--out", out.path], io: c.io), ExitCode.thresholdsFailed, c.stderr)
        XCTAssertTrue(c.stdout.contains("merged 2 shards of p-1-7"), c.stdout)
        XCTAssertTrue(c.stdout.contains("shard 1/2 from 127.0.0.3 on machine 1:"), c.stdout)
        XCTAssertTrue(c.stdout.contains("threshold failed: settlement count < 100"), c.stdout)
        let merged = try RunResults.load(path: out.appendingPathComponent("results.json").path)
        XCTAssertEqual(merged.metric("settlement")?.corrected.count, 120)
        XCTAssertEqual(merged.meta.shardRuns?.map(\.sourceAddress), ["127.0.0.2", "127.0.0.3"])
        let html = try String(contentsOf: out.appendingPathComponent("index.html"), encoding: .utf8)
        XCTAssertTrue(html.contains("<h3 id=\"shards\">Shards</h3>"), "the report has the shard table")
        XCTAssertTrue(html.contains("2 of 2 shards merged from 1 machine (shards on one machine share its CPU)"), "the hint names the shared machine")
        XCTAssertTrue(html.contains("<td>machine 1</td><td>127.0.0.3</td>"), "the second shard's row names its machine")

        let twice = CLITests.Capture()
        XCTAssertEqual(FleetCLI.run(["merge", folders[0], folders[0], "--out", out.path], io: twice.io), ExitCode.usage)
        XCTAssertTrue(twice.stderr.contains("shard 0/2 given twice"), twice.stderr)
        let noOut = CLITests.Capture()
        XCTAssertEqual(FleetCLI.run(["merge"] + folders, io: noOut.io), ExitCode.usage)
        XCTAssertTrue(noOut.stderr.contains("--out DIR is required"), noOut.stderr)
    }
}
