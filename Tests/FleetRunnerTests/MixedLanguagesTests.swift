import FleetMetrics
import Foundation
import XCTest
@testable import FleetRunner

/// `profiles/mixed.json`, shortened (fewer users, a 20 s run), through the built binary against
/// the reference stack configured three ways: `/config` listing `zh-Hans`, listing `zh`, and
/// omitting the lists (the bench then uses the app's bundled `[en, zh-Hans]`). The bench must
/// send only codes the server accepts, so every journey and every cohort warm-up completes with
/// no failure the run did not inject, and no request is refused as invalid.
final class MixedLanguagesTests: XCTestCase {
    func testMixedAgainstAStackListingZhHans() throws {
        try runShortMixed(stack: ["practiceLanguages": ["en", "zh-Hans"], "uiLocales": ["en", "zh-Hans"]])
    }

    func testMixedAgainstAStackListingZh() throws {
        try runShortMixed(stack: ["practiceLanguages": ["en", "zh"], "uiLocales": ["en", "zh"]])
    }

    func testMixedAgainstAStackWhoseConfigOmitsTheLists() throws {
        try runShortMixed(stack: ["configListsLanguages": false])
    }

    /// mixed.json with 24 + 40 + 16 users arriving over 6 s, 20 s of run and 15 s of grace, and
    /// `stack` merged into its stack settings; the journey and cohort mixes are the profile's own.
    static func shortMixed(stack: [String: Any], corpus: String) throws -> Data {
        let path = EndToEndTests.packageRoot.appendingPathComponent("profiles/mixed.json")
        var p = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: path)) as? [String: Any])
        p["duration_s"] = 20
        p["grace_s"] = 15
        var settings = try XCTUnwrap(p["stack"] as? [String: Any])
        settings.merge(stack) { $1 }
        p["stack"] = settings
        var c = try XCTUnwrap(p["corpus"] as? [String: Any])
        c["dir"] = corpus
        p["corpus"] = c
        var scenarios = try XCTUnwrap(p["scenarios"] as? [[String: Any]])
        XCTAssertEqual(scenarios.map { $0["name"] as? String }, ["new", "engaged", "lapsing"])
        for (i, users) in [24, 40, 16].enumerated() {
            var model = try XCTUnwrap(scenarios[i]["model"] as? [String: Any])
            model["users"] = users
            model["ramp_s"] = 6
            model["max_duration_s"] = 20
            scenarios[i]["model"] = model
        }
        p["scenarios"] = scenarios
        return try JSONSerialization.data(withJSONObject: p, options: [.sortedKeys])
    }

    private func runShortMixed(stack: [String: Any], file: StaticString = #filePath, line: UInt = #line) throws {
        let dir = try EndToEndTests.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let profile = dir.appendingPathComponent("mixed-short.json")
        try Self.shortMixed(stack: stack, corpus: EndToEndTests.packageRoot.appendingPathComponent("audio-corpus").path)
            .write(to: profile)
        let run = try EndToEndTests.fleet(["run", "--profile", profile.path, "--out", dir.path,
                                           "--history", dir.appendingPathComponent("history.sqlite").path], timeout: 150)
        let report = try XCTUnwrap(RunBinaryTests.reportDir(in: run.out), "status \(run.status)\n\(run.out)\n\(run.err)",
                                   file: file, line: line)
        let results = try RunResults.load(path: report.appendingPathComponent("results.json").path)

        let walked = results.journeys.filter { !$0.isWarmup }
        XCTAssertEqual(Set(walked.map(\.journey)), MixedProfileRunTests.journeys, file: file, line: line)
        // Every journey completes somewhere, and none fails for a reason the run did not inject.
        for name in MixedProfileRunTests.journeys {
            XCTAssertGreaterThan(walked.filter { $0.journey == name }.reduce(0) { $0 + $1.completed }, 0, "\(name) never completed",
                                 file: file, line: line)
        }
        XCTAssertGreaterThan(walked.first { $0.journey == "permissionDenied" && $0.cohort == "new" }?.completed ?? 0, 0,
                             "permissionDenied completes for new users", file: file, line: line)
        var unexpected: [String] = []
        for j in results.journeys {
            for e in j.exits where e.outcome == .failed && !MixedProfileRunTests.allowedFailureCodes.contains(e.code ?? "") {
                unexpected.append("\(j.journey)/\(j.cohort) failed \(e.count)× at \(e.step): \(e.code ?? "-")")
            }
        }
        XCTAssertEqual(unexpected, [], unexpected.joined(separator: "\n"), file: file, line: line)
        XCTAssertEqual(results.warmupJourneys.reduce(0) { $0 + $1.failed }, 0, "every cohort warm-up completes", file: file, line: line)
        // No request carried a code the server refuses (400 invalid_request), warm-ups included.
        let refused = results.endpoints.filter { ($0.statuses["400"] ?? 0) > 0 }.map(\.name)
        XCTAssertEqual(refused, [], file: file, line: line)
        XCTAssertGreaterThan(results.endpoint("warmup:GET /config")?.statuses["200"] ?? 0, 0, "the warm-up reads the codes too",
                             file: file, line: line)
        // Every name a run records is one that profile validation accepts as a threshold key.
        let names = results.metrics.map(\.name) + results.endpoints.map(\.name) + results.counters.keys
        let scenarios = ["new", "engaged", "lapsing"]
        XCTAssertEqual(names.filter { !ThresholdMetrics.isKnown($0, scenarios: scenarios) }, [], file: file, line: line)
    }
}
