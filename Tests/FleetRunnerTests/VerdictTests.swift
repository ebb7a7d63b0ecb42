import XCTest
import FleetCore
import FleetMetrics
@testable import FleetRunner

/// The verdict names the scenario that dropped arrivals, beside the run-wide note.
final class VerdictTests: XCTestCase {
    func testDroppedArrivalsAreNamedByScenario() throws {
        let p = try WorkloadModelTests.profile(#"""
        {"name": "open", "model": {"type": "constant-arrival-rate", "rate": 5, "duration_s": 1, "max_users": 1}, "journeys": {"dailyQuest": 1}},
        {"name": "calm", "model": {"type": "per-user-once", "users": 1}, "journeys": {"dailyQuest": 1}}
        """#)
        let recorder = Recorder()
        recorder.count("users_started:open", 2)
        recorder.count("dropped_arrivals", 3)
        recorder.count("dropped_arrivals:open", 3)
        recorder.count("users_started:calm", 1)
        let r = Verdict.apply(profile: p, to: recorder.snapshot(.init(runId: "t", profile: "t", seed: 1, target: "-", startedAt: "-")))
        XCTAssertEqual(r.meta.notes.first, "generator fell behind: 3 arrivals were dropped because no virtual user could start on time")
        XCTAssertTrue(r.meta.notes.contains("dropped arrivals by scenario: open 3 of 5"), "\(r.meta.notes)")
    }
}
