import FleetCore
import FleetRunner
import XCTest
@testable import FleetCLI

/// The runner's errors map to exit codes in one place: bad input 2, anything else 1.
final class ErrorExitCodeTests: XCTestCase {
    func testLongCommandsMapRunnerErrorsByKind() {
        let c = CLITests.Capture()
        XCTAssertEqual(exitCode(of: "run", io: c.io) { throw RunnerError.badInput("p.json: corpus.dir: no such directory") }, ExitCode.usage)
        XCTAssertEqual(exitCode(of: "run", io: c.io) { throw RunnerError.failed("target http://10.0.0.1 is not a loopback address") },
                       ExitCode.failure)
        XCTAssertEqual(exitCode(of: "run", io: c.io) { ExitCode.thresholdsFailed }, ExitCode.thresholdsFailed)
        XCTAssertEqual(c.stderr, "p.json: corpus.dir: no such directory\nfleet run: target http://10.0.0.1 is not a loopback address")
    }

    func testBadBlastAndProbeOptionsAreUsageErrors() {
        let blast = CLITests.Capture()
        XCTAssertEqual(FleetCLI.run(["blast", "http://192.0.2.1:80/x", "-d", "1"], io: blast.io), ExitCode.usage)
        XCTAssertEqual(blast.stderr, "fleet blast: URL 'http://192.0.2.1:80/x': host '192.0.2.1' is not loopback; "
                       + "blast only targets 127.0.0.0/8, ::1 or localhost")
        let probe = CLITests.Capture()
        XCTAssertEqual(FleetCLI.run(["probe", "upload-memory", "http://127.0.0.1.example.com:1/", "-n", "1"], io: probe.io), ExitCode.usage)
        XCTAssertTrue(probe.stderr.contains("probe URL must be loopback"), probe.stderr)
        let zero = CLITests.Capture()
        XCTAssertEqual(FleetCLI.run(["probe", "upload-memory", "http://127.0.0.1:1/", "-n", "0"], io: zero.io), ExitCode.usage)
        XCTAssertEqual(zero.stderr, "fleet probe: users must be > 0, got 0")
    }

    func testErrorsReadAsBefore() {
        XCTAssertEqual(RunnerError.badInput("x: y").description, "x: y")
        XCTAssertTrue(RunnerError.badInput("a").isBadInput)
        XCTAssertFalse(RunnerError.failed("a").isBadInput)
    }
}
