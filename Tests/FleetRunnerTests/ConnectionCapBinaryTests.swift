import Foundation
import XCTest

/// `fleet run` at its open-file limit: more users waiting on the server at once than the process
/// can hold sockets for. Without a cap the sockets past the limit fail (EMFILE), and curl's
/// "could not connect" would be counted as the server's errors.
final class ConnectionCapBinaryTests: XCTestCase {
    typealias E2E = EndToEndTests

    /// 300 users sign in within a second and the stack holds each `GET /config` for 2 s, so 300
    /// requests wait on it at once; with 256 open files the run caps itself at 128 connections,
    /// says so, and the requests past the cap wait for a connection: no error, and the wait shows
    /// in the latency measured from the intended start (past one 2 s hold).
    func testARunAtItsOpenFileLimitWaitsForConnectionsInsteadOfFailingRequests() throws {
        let dir = try E2E.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = try RunBinaryTests.writeProfile("""
        {"name": "fdcap", "seed": 3, "duration_s": 30, "grace_s": 30, "time_scale": 0.02,
         "stack": {"newUserEntitlement": "active", "workers": 64, "assessmentMedianMs": 50, "rateLimitPerSecond": 0,
                   "faults": {"GET /config": {"latencyMedianMs": 2000}}},
         "corpus": {"dir": "\(E2E.packageRoot.path)/audio-corpus"},
         "think_times": {"default": {"type": "constant", "ms": 1000}},
         "scenarios": [{"name": "burst", "model": {"type": "per-user-once", "users": 300, "ramp_s": 1, "max_duration_s": 50},
                        "journeys": {"dailyQuest": 1}, "cohorts": {"subscriber": 1}}]}
        """, in: dir)
        let run = try E2E.fleet(["run", "--profile", path, "--out", dir.path, "--history", dir.appendingPathComponent("h.sqlite").path],
                                timeout: 180, openFiles: 256)
        XCTAssertEqual(run.status, 0, "stdout:\n\(run.out)\nstderr:\n\(run.err)")
        XCTAssertTrue(run.out.contains("connections: at most 128 at once (open-file limit 256"), run.out)
        let summary = try XCTUnwrap(run.out.split(separator: "\n").last(where: { $0.hasPrefix("requests ") }), run.out)
        XCTAssertTrue(summary.hasSuffix("errors 0") || summary.contains("errors 0;"), String(summary))
        let report = try XCTUnwrap(RunBinaryTests.reportDir(in: run.out), run.out)
        let results = try RunBinaryTests.results(report)
        XCTAssertEqual((results["errors"] as? [Any])?.count, 0, "\(results["errors"] ?? "no errors key")")
        let counters = try XCTUnwrap(results["counters"] as? [String: Any])
        XCTAssertEqual((counters["users_started:burst"] as? NSNumber)?.intValue, 300)
        // The wait behind the cap is latency, not lost: with no wait every /config answer takes one
        // 2 s hold (p50 ~2.05 s); the requests behind the cap wait most of another. Runs read a
        // max of 3.9-4.1 s, so the bound is 1.5 holds (it was 2, which a run on a busy machine
        // missed at 3.91 s).
        let endpoints = try E2E.csv(report.appendingPathComponent("endpoints.csv").path)
        let config = try XCTUnwrap(endpoints.rows["GET /config"], "\(endpoints.rows.keys)")
        let column = { (name: String) in endpoints.header.firstIndex(of: name).map { Double(config[$0]) ?? -1 } ?? -1 }
        XCTAssertGreaterThanOrEqual(column("count"), 300, "\(config)")
        XCTAssertEqual(column("errors"), 0, "\(config)")
        XCTAssertGreaterThan(column("max_ms"), 3_000, "\(config)")
    }
}
