import FleetCore
import FleetJourneys
import XCTest
@testable import FleetRunner

/// A profile's `cohorts` without `journeys`: each cohort walks its own default mix.
final class ProfileCohortMixTests: XCTestCase {
    /// A scenario that gives cohorts but no `journeys` parses, and each of its users walks a
    /// journey from its own cohort's default mix, in about the default proportions; one that gives
    /// `journeys` keeps them whatever the cohort; one that gives neither is refused at its path.
    func testScenarioWithoutJourneysWalksEachCohortsDefaultMix() throws {
        func profile(_ scenario: String) -> JSONValue {
            try! JSONValue.parse("""
            {"name": "mix", "duration_s": 10, "scenarios": [{"model": {"type": "constant-arrival-rate", "rate": 1,
             "duration_s": 10}, \(scenario)}]}
            """)
        }
        let byCohort = try Profile.parse(profile(#""cohorts": {"new": 1, "expired": 1}"#), file: "mix.json").scenarios[0]
        XCTAssertEqual(byCohort.journeys, [:])
        var random = SeededRandom(seed: 7, stream: 7)
        var counts: [String: [JourneyName: Int]] = [:]
        for _ in 0..<4_000 {
            let (journey, cohort) = Population.pick(journeys: byCohort.journeys, cohorts: byCohort.cohorts, random: &random)
            counts[cohort, default: [:]][journey, default: 0] += 1
        }
        XCTAssertEqual(Set(counts.keys), ["new", "expired"])
        for (cohort, walked) in counts {
            let defaults = try XCTUnwrap(Population.defaultJourneyWeights[cohort])
            let n = Double(walked.values.reduce(0, +))
            XCTAssertTrue(Set(walked.keys).isSubset(of: defaults.keys), "\(cohort) walked \(walked)")
            for (journey, weight) in defaults {
                XCTAssertEqual(Double(walked[journey] ?? 0) / n, weight, accuracy: 0.05, "\(cohort).\(journey): \(walked)")
            }
        }

        let explicit = try Profile.parse(profile(#""journeys": {"deleteData": 1}, "cohorts": {"new": 1, "expired": 1}"#),
                                         file: "mix.json").scenarios[0]
        for _ in 0..<50 {
            XCTAssertEqual(Population.pick(journeys: explicit.journeys, cohorts: explicit.cohorts, random: &random).journey, .deleteData)
        }

        XCTAssertThrowsError(try Profile.parse(profile(#""name": "none""#), file: "mix.json")) { error in
            let issues = (error as? ProfileError)?.issues ?? []
            XCTAssertTrue(issues.contains { $0.path == "scenarios[0].journeys" && $0.message == "is required" }, "\(issues)")
        }
    }
}
