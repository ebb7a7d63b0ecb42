import FleetClient
import FleetCore
import FleetJourneys
import FleetMetrics
import XCTest
@testable import FleetRunner

/// Journey names parse into `JourneyName`, whose every case has its journey; threshold keys are
/// validated by the name types (metrics, counters, journeys, endpoints).
final class JourneyNameTests: XCTestCase {
    func testEveryJourneyNameHasItsJourneyAndUnknownNamesAreRefused() throws {
        for name in JourneyName.allCases {
            XCTAssertEqual(name.journey.name, name.rawValue)
            XCTAssertEqual(try JourneyName.parse(name.rawValue), name)
        }
        XCTAssertEqual(JourneyCatalog.all.count, JourneyName.allCases.count)
        XCTAssertThrowsError(try JourneyName.parse("dailyquest")) {
            XCTAssertEqual("\($0)", "no journey 'dailyquest' (known: changeLanguages, dailyQuest, deleteData, expiry, "
                           + "firstLaunch, freePractice, killAndResume, offlineUpload, permissionDenied)")
        }
    }

    func testAProfileNamingAnUnknownJourneyIsAValidationError() throws {
        let json = try JSONValue.parse(#"""
        {"name": "p", "duration_s": 5, "scenarios": [{"name": "s", "model": {"type": "constant-arrival-rate", "rate": 1, "duration_s": 5},
                                                       "journeys": {"dailyQuest": 1, "dailyquest": 1}}]}
        """#)
        XCTAssertThrowsError(try Profile.parse(json, file: "j.json")) { error in
            let issues = (error as? ProfileError)?.issues ?? []
            XCTAssertEqual(issues.map(\.path), ["scenarios[0].journeys.dailyquest"], "\(issues)")
        }
    }

    func testThresholdKeysAreKnownThroughTheNameTypes() {
        let scenarios = ["s"]
        for m in MetricName.recorded { XCTAssertTrue(ThresholdMetrics.isKnown(m.rawValue, scenarios: scenarios), m.rawValue) }
        for c in CounterKey.Name.runWide { XCTAssertTrue(ThresholdMetrics.isKnown(c.rawValue, scenarios: scenarios), c.rawValue) }
        for j in JourneyName.allCases { XCTAssertTrue(ThresholdMetrics.isKnown(j.rawValue, scenarios: scenarios), j.rawValue) }
        for r in Route.allCases {
            for label in [r.rawValue, "http:" + r.rawValue, "warmup:" + r.rawValue, "http:audit:" + r.rawValue] {
                XCTAssertTrue(ThresholdMetrics.isKnown(label, scenarios: scenarios), label)
            }
        }
        for known in ["users_started:s", "dropped_arrivals:s", "warmup", "http_errors"] {
            XCTAssertTrue(ThresholdMetrics.isKnown(known, scenarios: scenarios), known)
        }
        for unknown in ["users_started:t", "users_started", "app_kills:s", "assessment_turnround", "GET /nowhere",
                        "setup:GET /home", "http:dailyQuest", "dailyquest"] {
            XCTAssertFalse(ThresholdMetrics.isKnown(unknown, scenarios: scenarios), unknown)
        }
    }
}
