import XCTest
import FleetCore
import FleetJourneys
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

    /// A key that names nothing the bench knows is an error with its path, not silently ignored:
    /// a threshold metric, a probability no journey asks for, a think time no step uses.
    func testUnknownThresholdProbabilityAndThinkTimeKeysAreErrors() throws {
        let json = try JSONValue.parse("""
        {"name": "typos", "duration_s": 10,
         "think_times": {"raed": {"type": "constant", "ms": 1}, "read": {"type": "constant", "ms": 1},
                         "subscription_length": {"type": "constant", "ms": 1}},
         "probabilities": {"dailyQuest.fetch_evidence": 0.5, "dailyQuest.fecth_evidence": 0.5, "noJourney.abandon": 1,
                           "abandon": 1, "permissionDenied.open_settings": 1, "cohort.trial.diagnostic": 1, "cohort.vip.diagnostic": 1},
         "scenarios": [{"name": "s", "model": {"type": "constant-arrival-rate", "rate": 1, "duration_s": 5},
                        "journeys": {"dailyQuest": 1}}],
         "thresholds": {"foo": ["p99 < 10"], "assessment_turnaround": ["p99 < 8000"], "http:GET /home": ["p99 < 100"],
                        "warmup:POST /onboarding": ["rate < 0.1"], "users_started:s": ["count > 0"], "users_started:t": ["count > 0"],
                        "GET /nowhere": ["p99 < 10"], "dailyQuest": ["rate < 0.1"]}}
        """)
        XCTAssertThrowsError(try Profile.parse(json, file: "typos.json")) { error in
            guard let e = error as? ProfileError else { return XCTFail("\(error)") }
            XCTAssertEqual(Set(e.issues.map(\.path)), ["think_times.raed", "probabilities.dailyQuest.fecth_evidence",
                                                       "probabilities.noJourney.abandon", "probabilities.abandon",
                                                       "probabilities.cohort.vip.diagnostic", "thresholds.foo",
                                                       "thresholds.users_started:t", "thresholds.GET /nowhere"], "\(e)")
            let typo = e.issues.first { $0.path == "probabilities.dailyQuest.fecth_evidence" }?.message ?? ""
            XCTAssertTrue(typo.contains("dailyQuest makes no decision 'fecth_evidence'") && typo.contains("fetch_evidence"), typo)
            XCTAssertTrue(e.issues.first { $0.path == "think_times.raed" }?.message.contains("no step pauses on 'raed'") ?? false, "\(e)")
            XCTAssertTrue(e.issues.first { $0.path == "thresholds.foo" }?.message.contains("no metric 'foo'") ?? false, "\(e)")
        }
    }

    /// Every journey declares what it reads: the shared steps' keys come with the steps it uses.
    func testJourneysDeclareTheKeysTheirStepsRead() {
        let all = JourneyCatalog.all
        XCTAssertTrue(all["dailyQuest"]!.keys.decisions.isSuperset(of: ["fetch_evidence", "rate_feedback", "subscribe", "abandon"]))
        XCTAssertTrue(all["permissionDenied"]!.keys.decisions.isSuperset(of: ["open_settings", "grant_in_settings", "allow_notifications"]))
        XCTAssertTrue(all["firstLaunch"]!.keys.thinkTimes.isSuperset(of: ["onboarding_step", "plan_retry", "paywall", "mic_purpose"]))
        XCTAssertFalse(all["deleteData"]!.keys.decisions.contains("fetch_evidence"), "deleteData records nothing")
        XCTAssertTrue(KnownKeys.thinkTimes.isSuperset(of: ["default", "read", "library", "confirm", "cohort.at_risk_remaining"]))
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
