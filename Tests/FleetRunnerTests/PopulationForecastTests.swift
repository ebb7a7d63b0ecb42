import XCTest
import FleetCore
import FleetHTTP
import FleetJourneys
@testable import FleetRunner

/// The population's forecast requests, capacity steps drawn from the population, and which
/// visits a replay of a returning population user walks.
final class PopulationForecastTests: XCTestCase {
    func populationProfile() throws -> Profile {
        try Profile.parse(try JSONValue.parse("""
        {"name": "p", "seed": 9, "duration_s": 100, "stack": {"minAppVersion": "1.0.0"},
         "population": {"daily_active_users": 1000, "sessions_per_user": {"3": 1}, "cohorts": {"returning": 1, "new": 1},
                        "journeys_by_cohort": {"returning": {"dailyQuest": 1}}, "app_versions": {"1.4.0": 0.8, "0.9.0": 0.2},
                        "curve": {"type": "hourly", "weights": [\(Array(repeating: "1", count: 24).joined(separator: ","))]},
                        "min_gap_h": 2},
         "scenarios": [{"name": "day", "model": {"type": "population", "window": "day", "compression": 1440}}]}
        """), file: "p.json")
    }

    func testTheForecastWeighsEachJourneysRequestsByTheCohortMixAndTheGate() throws {
        let profile = try populationProfile()
        let spec = try XCTUnwrap(profile.population)
        let f = ExpectedRequests(spec: spec, minAppVersion: "1.0.0")
        XCTAssertEqual(f.gatedShare, 0.2, accuracy: 1e-12)
        // By hand: 80 % pass the gate; half are returning (daily quest only), half new (0.9 first launch, 0.1 permission denied).
        let table = RequestsPerVisit.measured
        let dq = try XCTUnwrap(table["dailyQuest"]), fl = try XCTUnwrap(table["firstLaunch"]), pd = try XCTUnwrap(table["permissionDenied"])
        for endpoint in ["GET /home", "POST /attempts/{id}/submit", "GET /config"] {
            let want = 0.8 * (0.5 * (dq[endpoint] ?? 0) + 0.5 * (0.9 * (fl[endpoint] ?? 0) + 0.1 * (pd[endpoint] ?? 0)))
            XCTAssertEqual(f.perVisit[endpoint] ?? 0, want, accuracy: 1e-9, endpoint)
        }
        let signIn = 0.8 * (0.5 * (dq["POST /auth/anonymous"] ?? 0) + 0.5 * (0.9 * (fl["POST /auth/anonymous"] ?? 0)
            + 0.1 * (pd["POST /auth/anonymous"] ?? 0))) + 0.2
        XCTAssertEqual(f.perVisit["POST /auth/anonymous"] ?? 0, signIn, accuracy: 1e-9, "a gated visit ends at its sign-in")
        XCTAssertGreaterThan(dq["GET /home"] ?? 0, 1.5, "the quest opens home before and after")
        // Against a target the gate is unknown: nobody is gated.
        XCTAssertEqual(ExpectedRequests(spec: spec, minAppVersion: nil).gatedShare, 0)
        let lines = profile.populationLines()
        XCTAssertTrue(lines.contains { $0.hasPrefix("population: expected at the peak: ~") }, lines.joined(separator: "\n"))
        XCTAssertTrue(lines.contains { $0.contains("20.0 % of visits run an app below min_app_version") })
        XCTAssertTrue(lines.contains { $0.hasPrefix("population:   expected GET /home ") })
    }

    func testEveryJourneyHasRequestsPerVisitAndTheyNameKnownEndpoints() {
        XCTAssertEqual(Set(RequestsPerVisit.measured.keys), Set(JourneyCatalog.all.keys))
        for (journey, row) in RequestsPerVisit.measured {
            XCTAssertGreaterThan(row.values.reduce(0, +), 1, journey)
            for endpoint in row.keys { XCTAssertFalse(endpoint.hasPrefix("warmup:") || endpoint.hasPrefix("audit:"), endpoint) }
        }
    }

    func testACapacityStepOffersThePopulationsVisitors() throws {
        let profile = try populationProfile()
        let runner = LiveStepRunner(profile: profile, settings: CapacitySettings(), clientSettings: profile.client.settings(baseURL: "http://127.0.0.1:1"),
                                    engine: try HTTPEngine(configuration: .init()), recordings: NoRecordings(), cores: 2, say: { _ in })
        let step = runner.stepProfile(rate: 3, maxS: 30, index: 2)
        XCTAssertEqual(step.scenarios.count, 1)
        XCTAssertNotNil(step.scenarios[0].visitors)
        XCTAssertTrue(step.scenarios[0].model.model is ConstantArrivalRate)
        XCTAssertTrue(CapacityRun.mixLine(profile).contains("new users of the population (new 50 %, returning 50 %"))
    }

    func testAReplayOfAPopulationUserWalksAllItsVisitsInOrder() throws {
        let profile = try populationProfile()
        let local = PopulationUser.encode(user: 7, visit: 0)
        let visits = ReplaySession.visits(profile: profile, scenario: 0, local: local)
        // Three sessions a day, a 100 s run of a 60 s day: all three, numbered in order.
        XCTAssertEqual(visits, [0, 1, 2].map { PopulationUser.encode(user: 7, visit: $0) })
        var plain = profile
        plain.scenarios[0].model = WorkloadModelConfig(model: ConstantArrivalRate(rate: 1, durationS: 10, maxUsers: 10))
        XCTAssertEqual(ReplaySession.visits(profile: plain, scenario: 0, local: 5), [5])
    }
}

/// A step profile is only built here, never walked: no clip is ever asked for.
private struct NoRecordings: RecordingSource {
    func pick(language: String, round: Int, classMix: [String: Double], random: inout SeededRandom) -> Recording? { nil }
}
