import FleetCore
import XCTest
@testable import FleetCLI

/// `--bugs` with a name the stack does not know is bad input (exit 2) before anything starts.
final class BugsOptionTests: XCTestCase {
    func testUnknownBugIsAUsageErrorListingTheKnownOnes() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("bugs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let profile = dir.appendingPathComponent("p.json").path
        try Data(#"{"name": "p", "duration_s": 1, "scenarios": [{"name": "s", "model": {"type": "constant_vus", "vus": 1}, "journeys": {"dailyQuest": 1}}]}"#.utf8)
            .write(to: URL(fileURLWithPath: profile))
        for command in [["run", "--profile", profile, "--bugs", "settle-race,nosuch"], ["stack", "--bugs", "nosuch"]] {
            let c = CLITests.Capture()
            XCTAssertEqual(FleetCLI.run(command, io: c.io), ExitCode.usage, command.joined(separator: " "))
            XCTAssertTrue(c.stderr.contains("--bugs: unknown bug 'nosuch' (known: settle-race, dup-transaction, streak-utc, lost-submit, stale-resume)"),
                          c.stderr)
        }
    }
}
