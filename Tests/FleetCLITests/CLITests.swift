import FleetCore
import FleetTestSupport
import XCTest
@testable import FleetCLI

/// The CLI runs in memory: output captured, exit code returned, nothing touches the process.
final class CLITests: XCTestCase {
    /// What a command wrote, line by line, on each stream.
    final class Capture: Sendable {
        private let out = Box<[String]>([]), err = Box<[String]>([])
        var io: CommandIO { CommandIO(out: { [out] in out.append($0) }, err: { [err] in err.append($0) }) }
        var stdout: String { out.value.joined(separator: "\n") }
        var stderr: String { err.value.joined(separator: "\n") }
    }

    func testUnknownCommandAndNoArgumentsAreUsageErrors() {
        let c = Capture()
        XCTAssertEqual(FleetCLI.run(["frobnicate"], io: c.io), ExitCode.usage)
        XCTAssertTrue(c.stderr.contains("unknown command 'frobnicate'"), c.stderr)
        XCTAssertEqual(FleetCLI.run([], io: c.io), ExitCode.usage)
        XCTAssertEqual(FleetCLI.run(["help"], io: c.io), ExitCode.success)
        for name in ["run", "stack", "profile", "blast"] { XCTAssertTrue(c.stdout.contains("  \(name)"), name) }
    }

    func testArgumentReaderTakesBothFormsAndRejectsUnknownFlags() throws {
        var a = ArgumentReader(["--out=/tmp/x", "-p", "prof.json", "--seed", "12", "pos", "--allow-remote"])
        XCTAssertEqual(try a.option("out"), "/tmp/x")
        XCTAssertEqual(try a.option("profile", short: "p"), "prof.json")
        XCTAssertEqual(try a.intOption("seed"), 12)
        XCTAssertTrue(a.flag("allow-remote"))
        XCTAssertEqual(try a.finish(), ["pos"])

        var b = ArgumentReader(["--seed", "twelve"])
        XCTAssertThrowsError(try b.intOption("seed")) { XCTAssertEqual("\($0)", "--seed: expected an integer, got 'twelve'") }
        var c = ArgumentReader(["--bogus"])
        XCTAssertThrowsError(try c.finish()) { XCTAssertEqual("\($0)", "unknown option '--bogus'") }
        var d = ArgumentReader(["--out"])
        XCTAssertThrowsError(try d.option("out")) { XCTAssertEqual("\($0)", "--out: expected a value") }
    }

    func testRunWithoutProfileAndProfileValidateReportErrors() throws {
        let c = Capture()
        XCTAssertEqual(FleetCLI.run(["run"], io: c.io), ExitCode.usage)
        XCTAssertTrue(c.stderr.contains("--profile FILE is required"), c.stderr)

        let path = FileManager.default.temporaryDirectory.appendingPathComponent("cli-\(UUID().uuidString).json").path
        try #"{"name": "x", "duration_s": 0, "scenarios": []}"#.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let v = Capture()
        XCTAssertEqual(FleetCLI.run(["profile", "validate", path], io: v.io), ExitCode.usage)
        XCTAssertTrue(v.stderr.contains("\(path): duration_s: must be > 0"), v.stderr)
        XCTAssertTrue(v.stderr.contains("\(path): scenarios: must have at least one scenario"), v.stderr)
    }
}
