import Foundation
import XCTest
import FleetMetrics

/// A population run through the `fleet` binary: a day compressed into 30 s, every user visiting twice.
final class PopulationRunTests: XCTestCase {
    func testReturningVisitsAreTheSameAccountsAndOldAppsMeetTheForceUpdateGate() throws {
        let dir = try EndToEndTests.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("population.json").path
        // Flat over the day (24 equal hours), 40 users × 2 sessions at least 10 h (12.5 s of run) apart, longer than a visit.
        let flat = Array(repeating: "1", count: 24).joined(separator: ", ")
        try """
        {"name": "population-test", "seed": 5, "duration_s": 31, "grace_s": 20, "time_scale": 0.02,
         "stack": {"newUserEntitlement": "active", "workers": 8, "assessmentMedianMs": 100, "minAppVersion": "1.0.0", "rateLimitPerSecond": 0},
         "corpus": {"dir": "\(EndToEndTests.packageRoot.path)/audio-corpus", "clip_mix": {"speech": 1}},
         "population": {"daily_active_users": 40, "sessions_per_user": {"2": 1}, "curve": {"type": "hourly", "weights": [\(flat)]},
                        "timezones": {"UTC": 1, "Asia/Tokyo": 1}, "app_versions": {"1.4.0": 0.75, "0.9.0": 0.25},
                        "cohorts": {"subscriber": 1}, "journeys_by_cohort": {"subscriber": {"dailyQuest": 1}}, "visit_s": 20,
                        "min_gap_h": 10},
         "scenarios": [{"name": "day", "model": {"type": "population", "window": "day", "compression": 2880}}]}
        """.write(toFile: path, atomically: true, encoding: .utf8)
        let r = try EndToEndTests.fleet(["run", "--profile", path, "--out", dir.path, "--history", dir.path + "/h.sqlite"], timeout: 150)
        XCTAssertTrue(r.out.contains("population: 40 daily active users × 2.00 sessions = 80 visits/day over 2 timezones"), r.out)
        XCTAssertTrue(r.out.contains("population: peak"), r.out)
        XCTAssertTrue(r.out.contains("would send"), r.out)
        let run = try XCTUnwrap(try FileManager.default.contentsOfDirectory(atPath: dir.path).first { $0.hasPrefix("population-test-") })
        let results = try RunResults.load(path: dir.path + "/\(run)/results.json")
        XCTAssertEqual(results.counters["users_started:day"], 80, "two visits per user")
        XCTAssertNil(results.counters["population_visits_skipped_busy"])
        // One account per user: each signed in (and was warmed up into its cohort) once, on its
        // first visit; the second visit came back with the device's tokens.
        let signIns = results.endpoints.filter { $0.name.hasSuffix("POST /auth/anonymous") }.reduce(Int64(0)) { $0 + $1.latency.corrected.count }
        XCTAssertEqual(signIns, 40, results.endpoints.map(\.name).joined(separator: ", "))
        let warmups = results.warmupJourneys.reduce(Int64(0)) { $0 + $1.started }
        XCTAssertEqual(warmups, 40)
        // The quarter on 0.9.0 is answered 426 upgrade_required.
        let upgrades = results.endpoints.reduce(Int64(0)) { $0 + ($1.statuses["426"] ?? 0) }
        XCTAssertGreaterThan(upgrades, 0)
        let html = try String(contentsOfFile: dir.path + "/\(run)/index.html", encoding: .utf8)
        XCTAssertTrue(html.contains("<section id=\"arrivals\">"))
    }
}
