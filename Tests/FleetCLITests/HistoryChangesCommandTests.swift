import FleetCore
import FleetMetrics
import FleetReport
import Foundation
import XCTest
@testable import FleetCLI

/// `fleet history --changes` over a real history database of 30 nightly runs.
final class HistoryChangesCommandTests: XCTestCase {
    /// A run whose turnaround sits at `levelMs` (± a deterministic wobble), settlement flat.
    private func run(_ i: Int, levelMs: Double) -> RunResults {
        var t = MetricResult(name: "assessment_turnaround"), s = MetricResult(name: "settlement")
        let wobble = 1 + 0.04 * sin(Double(i) * 2.3)
        for k in 0..<200 {
            t.corrected.record(Int64(levelMs * wobble * 1000 * (0.8 + 0.002 * Double(k))))
            s.corrected.record(Int64(30_000 * wobble))
        }
        let day = String(format: "2026-%02d-%02dT02:00:00Z", 10 + i / 28, i % 28 + 1)
        return RunResults(meta: RunMetadata(runId: "nightly-\(i)", profile: "nightly", seed: 1, target: "embedded", startedAt: day,
                                            plannedDurationSeconds: 60, actualDurationSeconds: 60), metrics: [t, s])
    }

    func testAStepAtRunTwentyIsListedAndAFlatHistoryHasNone() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fleet-changes-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let stepped = dir + "/stepped.sqlite", flat = dir + "/flat.sqlite"
        let a = try HistoryStore(path: stepped), b = try HistoryStore(path: flat)
        for i in 0..<30 {
            try a.append(run(i, levelMs: i >= 20 ? 1380 : 1200))
            try b.append(run(i, levelMs: 1200))
        }
        let c = CLITests.Capture()
        XCTAssertEqual(FleetCLI.run(["history", "--history", stepped, "--profile", "nightly", "--changes"], io: c.io), 0, c.stderr)
        let lines = c.stdout.split(separator: "\n")
        // The whole turnaround distribution moved: p50 and p99 change at run 21, settlement does not.
        XCTAssertEqual(lines.count, 2, c.stdout)
        XCTAssertTrue(lines.allSatisfy { $0.hasPrefix("run 21 nightly-20 (") }, c.stdout)
        XCTAssertTrue(lines[0].contains("turnaround_p50_ms") && lines[0].contains("(+15."), c.stdout)
        XCTAssertTrue(lines[1].contains("turnaround_p99_ms"), c.stdout)

        let f = CLITests.Capture()
        XCTAssertEqual(FleetCLI.run(["history", "--history", flat, "--profile", "nightly", "--changes"], io: f.io), 0)
        XCTAssertEqual(f.stdout, "no change points in 30 runs")
        XCTAssertEqual(FleetCLI.run(["history", "--history", flat, "--changes"], io: f.io), ExitCode.usage)
        XCTAssertTrue(f.stderr.contains("--changes needs --profile"), f.stderr)
    }
}
