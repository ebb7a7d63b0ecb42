import Foundation
import XCTest

/// The bug hunt as a user meets it: a named bug of the reference stack is caught by a run
/// (exit 98, `violations.csv`, the violating user's trace) and reproduced by `fleet replay`;
/// with the bug off the same run reports no violation.
final class BugHuntBinaryTests: XCTestCase {
    typealias E2E = EndToEndTests

    private func profile(in dir: URL) throws -> String {
        try RunBinaryTests.writeProfile("""
        {"name": "hunt", "seed": 21, "duration_s": 30, "grace_s": 20, "time_scale": 0.02,
         "stack": {"newUserEntitlement": "active", "workers": 8, "assessmentMedianMs": 100, "rateLimitPerSecond": 0},
         "corpus": {"dir": "\(E2E.packageRoot.path)/audio-corpus"},
         "think_times": {"default": {"type": "constant", "ms": 500}},
         "checks": {"audit_s": 3, "audit_max_s": 10},
         "scenarios": [{"name": "taps", "model": {"type": "per-user-once", "users": 4, "ramp_s": 1, "max_duration_s": 25},
                        "journeys": {"dailyQuest": 1}, "cohorts": {"subscriber": 1},
                        "amplifiers": {"double_tap": 1.0, "double_tap_copies": 3}}]}
        """, in: dir)
    }

    func testSettleRaceIsCaughtTracedAndReplayed() throws {
        let dir = try E2E.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = try profile(in: dir)
        let junit = dir.appendingPathComponent("junit.xml")
        let run = try E2E.fleet(["run", "--profile", path, "--bugs", "settle-race", "--out", dir.path, "--junit", junit.path,
                                 "--history", dir.appendingPathComponent("h.sqlite").path])
        XCTAssertEqual(run.status, 98, "stdout:\n\(run.out)\nstderr:\n\(run.err)")
        let report = try XCTUnwrap(RunBinaryTests.reportDir(in: run.out), run.out)
        let csv = try String(contentsOf: report.appendingPathComponent("violations.csv"), encoding: .utf8)
        let lines = csv.split(separator: "\n")
        XCTAssertEqual(lines.first, "invariant,user,scenario,journey,seed,first_at_s,detail")
        XCTAssertGreaterThan(lines.count, 1, csv)
        XCTAssertTrue(lines.dropFirst().allSatisfy { $0.hasPrefix("one_settlement_per_session,") }, csv)
        let user = try XCTUnwrap(lines.dropFirst().first?.split(separator: ",")[1]).description
        let trace = try String(contentsOf: report.appendingPathComponent("traces/user-\(user).jsonl"), encoding: .utf8)
        XCTAssertTrue(trace.contains("POST /sessions/{id}/complete"), trace)
        XCTAssertTrue(trace.contains("<redacted>"), "sign-in's tokens are redacted")
        XCTAssertFalse(trace.contains("\"access_token\":\"t"), trace)
        let results = try RunBinaryTests.results(report)
        XCTAssertEqual((results["violations"] as? [[String: Any]])?.count, lines.count - 1)
        let xml = try String(contentsOf: junit, encoding: .utf8)
        XCTAssertTrue(xml.contains("<testsuite name=\"invariants\""), xml)
        XCTAssertTrue(xml.contains("<testcase name=\"one_settlement_per_session\" classname=\"fleet.invariants\""), xml)
        XCTAssertEqual(xml.components(separatedBy: "classname=\"fleet.invariants\"").count - 1, 8, "one case per invariant")
        let html = try String(contentsOf: report.appendingPathComponent("index.html"), encoding: .utf8)
        XCTAssertTrue(html.contains("<section id=\"invariants\">"))

        let replay = try E2E.fleet(["replay", "--run", report.path, "--user", user, "--repeat", "2"])
        XCTAssertEqual(replay.status, 98, "stdout:\n\(replay.out)\nstderr:\n\(replay.err)")
        XCTAssertTrue(replay.out.contains("try 1: reproduced") || replay.out.contains("try 2: reproduced"), replay.out)
    }

    func testWithoutTheBugNothingIsViolated() throws {
        let dir = try E2E.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = try profile(in: dir)
        let run = try E2E.fleet(["run", "--profile", path, "--out", dir.path, "--history", dir.appendingPathComponent("h.sqlite").path])
        XCTAssertEqual(run.status, 0, "stdout:\n\(run.out)\nstderr:\n\(run.err)")
        let report = try XCTUnwrap(RunBinaryTests.reportDir(in: run.out), run.out)
        let csv = try String(contentsOf: report.appendingPathComponent("violations.csv"), encoding: .utf8)
        XCTAssertEqual(csv, "invariant,user,scenario,journey,seed,first_at_s,detail\n")
        XCTAssertTrue(run.out.contains("invariants: all 8 checked, none violated"), run.out)
        let counters = try XCTUnwrap(try RunBinaryTests.results(report)["counters"] as? [String: Any])
        XCTAssertGreaterThan((counters["double_taps"] as? NSNumber)?.intValue ?? 0, 0, "the amplifier tapped: \(counters)")
    }
}
