import FleetCore
import Foundation
import XCTest
@testable import FleetCLI

/// `fleet compare` on the report fixtures: the run is about 25 % slower than its baseline.
final class CompareCommandTests: XCTestCase {
    private let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("FleetReportTests/Fixtures")

    func testASlowerRunExits97AndTheFasterDirectionExits0() throws {
        let base = fixtures.appendingPathComponent("baseline.json").path, new = fixtures.appendingPathComponent("results.json").path
        let c = CLITests.Capture()
        XCTAssertEqual(FleetCLI.run(["compare", base, new], io: c.io), ExitCode.regression, c.stderr)
        XCTAssertTrue(c.stdout.contains("REGRESSION against baseline"), c.stdout)
        XCTAssertTrue(c.stdout.contains("http_errors"), c.stdout)
        let back = CLITests.Capture()
        XCTAssertEqual(FleetCLI.run(["compare", new, base], io: back.io), ExitCode.success, back.stdout)
        XCTAssertTrue(back.stdout.contains("no regression"), back.stdout)
    }

    func testRunsOfAnotherProfileAreRefusedUnlessForced() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fleet-compare-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let text = try String(contentsOf: fixtures.appendingPathComponent("baseline.json"), encoding: .utf8)
        let renamed = dir.appendingPathComponent("other.json")
        let profile = try XCTUnwrap(text.range(of: #""profile":"[^"]*""#, options: .regularExpression))
        try text.replacingCharacters(in: profile, with: #""profile":"another""#).write(to: renamed, atomically: true, encoding: .utf8)
        let new = fixtures.appendingPathComponent("results.json").path
        let c = CLITests.Capture()
        XCTAssertEqual(FleetCLI.run(["compare", renamed.path, new], io: c.io), ExitCode.usage)
        XCTAssertTrue(c.stderr.contains("runs are not comparable: profile 'another'"), c.stderr)
        let f = CLITests.Capture()
        XCTAssertEqual(FleetCLI.run(["compare", renamed.path, new, "--force"], io: f.io), ExitCode.regression)
        XCTAssertTrue(f.stdout.contains("warning: not like for like"), f.stdout)
        XCTAssertEqual(FleetCLI.run(["compare", new], io: c.io), ExitCode.usage)
    }

    func testExitPrecedenceIsViolationThenThresholdThenRegression() {
        XCTAssertEqual(ExitCode.of(interrupted: false, violated: true, thresholdsFailed: true, regressed: true), 98)
        XCTAssertEqual(ExitCode.of(interrupted: false, thresholdsFailed: true, regressed: true), 99)
        XCTAssertEqual(ExitCode.of(interrupted: false, thresholdsFailed: false, regressed: true), 97)
        XCTAssertEqual(ExitCode.of(interrupted: false, thresholdsFailed: false, regressed: false), 0)
        XCTAssertEqual(ExitCode.of(interrupted: true, thresholdsFailed: true, regressed: true), 130)
    }
}
