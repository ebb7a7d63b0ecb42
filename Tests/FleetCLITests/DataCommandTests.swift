import FleetCore
import XCTest
@testable import FleetCLI

/// `fleet corpus`, `fleet report` and `fleet history` through the in-memory CLI.
final class DataCommandTests: XCTestCase {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    func testCorpusValidateNamesAMissingDirectoryAndExits2() {
        let c = CLITests.Capture()
        XCTAssertEqual(FleetCLI.run(["corpus", "validate", "/nonexistent/corpus"], io: c.io), ExitCode.usage)
        XCTAssertTrue(c.stderr.contains("/nonexistent/corpus"), c.stderr)
        XCTAssertEqual(FleetCLI.run(["corpus", "frob"], io: c.io), ExitCode.usage)
        XCTAssertTrue(c.stderr.contains("unknown subcommand 'frob'"), c.stderr)
    }

    func testReportRerendersAResultsFileAndHistoryListsRecordedRuns() throws {
        let fixtures = Self.root.appendingPathComponent("Tests/FleetReportTests/Fixtures")
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("cli-report-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: out) }
        let history = out.appendingPathComponent("history.sqlite").path
        let c = CLITests.Capture()
        let code = FleetCLI.run(["report", fixtures.appendingPathComponent("results.json").path,
                                 "--baseline", fixtures.appendingPathComponent("baseline.json").path,
                                 "--out", out.path, "--history", history, "--record"], io: c.io)
        XCTAssertEqual(code, ExitCode.success, c.stderr)
        let html = try String(contentsOf: out.appendingPathComponent("index.html"), encoding: .utf8)
        XCTAssertTrue(html.contains("<svg"), "charts are inline SVG")
        XCTAssertTrue(FileManager.default.fileExists(atPath: out.appendingPathComponent("summary.csv").path))

        let h = CLITests.Capture()
        XCTAssertEqual(FleetCLI.run(["history", "--history", history], io: h.io), ExitCode.success, h.stderr)
        XCTAssertFalse(h.stdout.isEmpty)

        let bad = CLITests.Capture()
        XCTAssertEqual(FleetCLI.run(["report", "/nonexistent/results.json", "--out", out.path], io: bad.io), ExitCode.usage)
        XCTAssertTrue(bad.stderr.contains("/nonexistent/results.json"), bad.stderr)
    }
}
