import XCTest
import FleetCore
@testable import FleetRunner

final class ProfileValidationTests: XCTestCase {
    func testEveryProblemIsReportedWithItsPath() throws {
        let json = try JSONValue.parse("""
        {"name": "bad", "duration_s": -1, "speed": 3, "time_scale": 0,
         "think_times": {"read": {"type": "uniform", "min_ms": 500, "max_ms": 100}, "home": {"type": "gamma"}},
         "scenarios": [
           {"name": "a", "model": {"type": "constant-arrival-rate", "rate": 5, "duration_s": 10},
            "journeys": {"dailyQuest": 1}},
           {"name": "a", "model": {"type": "ramping-arrival-rate", "stages": [{"duration_s": 10, "rate": -2}, {"rate": 1}]},
            "journeys": {"noSuchJourney": 1}, "cohorts": {"vip": 1}},
           {"model": {"type": "teleport"}, "journeys": {"dailyQuest": 0}}
         ],
         "thresholds": {"assessment_turnaround": ["p99 <", "p50 < 3000"], "http_errors": "rate < 0.01"}}
        """)
        XCTAssertThrowsError(try Profile.parse(json, file: "bad.json")) { error in
            guard let e = error as? ProfileError else { return XCTFail("\(error)") }
            let paths = Set(e.issues.map(\.path))
            for expected in ["duration_s", "speed", "time_scale", "think_times.read.max_ms", "think_times.home.type",
                             "scenarios[1].name", "scenarios[1].model.stages[0].rate", "scenarios[1].model.stages[1].duration_s",
                             "scenarios[1].journeys.noSuchJourney", "scenarios[1].cohorts.vip", "scenarios[2].model.type",
                             "scenarios[2].journeys", "thresholds.assessment_turnaround[0]", "thresholds.http_errors"] {
                XCTAssertTrue(paths.contains(expected), "missing \(expected) in \(e.issues)")
            }
            XCTAssertTrue(e.description.hasPrefix("bad.json: "), e.description)
            XCTAssertTrue(e.issues.contains { $0.path == "scenarios[1].model.stages[0].rate" && $0.message == "must be >= 0" })
        }
    }

    func testShippedProfilesValidate() throws {
        let dir = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("profiles")
        let files = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasSuffix(".json") }
        XCTAssertTrue(files.contains("smoke.json"))
        for f in files {
            let p = try Profile.load(path: dir.appendingPathComponent(f).path)
            XCTAssertFalse(p.scenarios.isEmpty, f)
        }
        let smoke = try Profile.load(path: dir.appendingPathComponent("smoke.json").path)
        XCTAssertLessThanOrEqual(smoke.durationS, 60)
    }

    func testMissingFileAndBrokenJSONNameTheFile() {
        XCTAssertThrowsError(try Profile.load(path: "/nonexistent/p.json")) { e in
            XCTAssertEqual("\(e)", "/nonexistent/p.json: (file): cannot be read")
        }
        XCTAssertThrowsError(try Profile.parse(.array([]), file: "x.json")) { e in
            XCTAssertTrue("\(e)".contains("x.json: (root): must be a JSON object"), "\(e)")
        }
    }
}
