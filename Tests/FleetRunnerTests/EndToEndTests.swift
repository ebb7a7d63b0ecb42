import FleetMetrics
import Foundation
import FleetTestSupport
import XCTest

/// Runs the built `fleet` binary against the embedded stack (a child process it starts itself),
/// as a user would, and reads the report it wrote.
final class EndToEndTests: XCTestCase {
    static var packageRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    /// The `fleet` executable built beside this test bundle.
    static var fleetBinary: String {
        let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        var dir = URL(fileURLWithPath: exe).deletingLastPathComponent()
        if dir.lastPathComponent.hasSuffix(".xctest") { dir = dir.deletingLastPathComponent() }
        return dir.appendingPathComponent("fleet").path
    }

    struct Run {
        var status: Int32
        var out: String
        var err: String
    }

    /// Runs the built `fleet` with `args`; `openFiles` sets its open-file limit, soft and hard
    /// (through `sh -c 'ulimit -n N'`), so a test can see what the bench does at that limit.
    static func fleet(_ args: [String], timeout: Double = 120, openFiles: Int? = nil) throws -> Run {
        let p = Process()
        if let openFiles {
            p.executableURL = URL(fileURLWithPath: "/bin/sh")
            p.arguments = ["-c", "ulimit -n \(openFiles) && exec \"$0\" \"$@\"", fleetBinary] + args
        } else {
            p.executableURL = URL(fileURLWithPath: fleetBinary)
            p.arguments = args
        }
        p.currentDirectoryURL = packageRoot
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        let outData = Box<Data>(Data()), errData = Box<Data>(Data())
        let g = DispatchGroup()
        for (pipe, box) in [(out, outData), (err, errData)] {
            g.enter()
            DispatchQueue.global().async {
                box.value = pipe.fileHandleForReading.readDataToEndOfFile()
                g.leave()
            }
        }
        if g.wait(timeout: .now() + timeout) == .timedOut {
            p.terminate()
            XCTFail("fleet \(args.joined(separator: " ")) did not finish within \(timeout) s")
        }
        p.waitUntilExit()
        return Run(status: p.terminationStatus, out: String(decoding: outData.value, as: UTF8.self),
                   err: String(decoding: errData.value, as: UTF8.self))
    }

    static func tempDir() throws -> URL {
        let d = FileManager.default.temporaryDirectory.appendingPathComponent("fleet-e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: d, withIntermediateDirectories: true)
        return d
    }

    /// CSV rows keyed by their first column.
    static func csv(_ path: String) throws -> (header: [String], rows: [String: [String]]) {
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map(String.init)
        let header = lines[0].split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        var rows: [String: [String]] = [:]
        for l in lines.dropFirst() {
            let f = l.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            rows[f[0]] = f
        }
        return (header, rows)
    }

    func testFiftyUsersCompleteTheDailyQuest() throws {
        let dir = try Self.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let profile = """
        {"name": "e2e", "seed": 7, "duration_s": 90, "grace_s": 5, "time_scale": 0.02,
         "stack": {"newUserEntitlement": "active", "workers": 8, "assessmentMedianMs": 200},
         "corpus": {"dir": "\(Self.packageRoot.path)/audio-corpus", "clip_mix": {"speech": 1}},
         "think_times": {"default": {"type": "uniform", "min_ms": 1000, "max_ms": 5000}},
         "scenarios": [{"name": "daily", "model": {"type": "per-user-once", "users": 50, "ramp_s": 5, "max_duration_s": 80},
                        "journeys": {"dailyQuest": 1}, "cohorts": {"subscriber": 1}}]}
        """
        let profilePath = dir.appendingPathComponent("e2e.json").path
        try profile.write(toFile: profilePath, atomically: true, encoding: .utf8)
        let run = try Self.fleet(["run", "--profile", profilePath, "--out", dir.path,
                                  "--history", dir.appendingPathComponent("history.sqlite").path])
        XCTAssertEqual(run.status, 0, "stdout:\n\(run.out)\nstderr:\n\(run.err)")
        guard let reportLine = run.out.split(separator: "\n").last(where: { $0.hasPrefix("report: ") }) else {
            return XCTFail("no report line in:\n\(run.out)")
        }
        let index = String(reportLine.dropFirst("report: ".count))
        let reportDir = URL(fileURLWithPath: index).deletingLastPathComponent()
        XCTAssertTrue(FileManager.default.fileExists(atPath: index))

        let (header, rows) = try Self.csv(reportDir.appendingPathComponent("summary.csv").path)
        XCTAssertEqual(header, ["metric", "count", "p50_ms", "p90_ms", "p99_ms", "p99_9_ms", "max_ms", "mean_ms", "errors"])
        let turnaround = try XCTUnwrap(rows["assessment_turnaround"])
        let settlement = try XCTUnwrap(rows["settlement"])
        // Every user completes: two assessed rounds and one settlement each.
        XCTAssertEqual(settlement[1], "50")
        XCTAssertEqual(turnaround[1], "100")
        for row in [turnaround, settlement] {
            let p50 = Double(row[2])!, p99 = Double(row[4])!, max = Double(row[6])!
            XCTAssertGreaterThan(p50, 0)
            XCTAssertLessThanOrEqual(p50, p99)
            XCTAssertLessThanOrEqual(p99, max)
        }
        XCTAssertNotNil(rows["assessment_turnaround_server"])
        XCTAssertNotNil(rows["http:POST /sessions/{id}/complete"])
        XCTAssertEqual(rows["http:POST /sessions/{id}/complete"]?[1], "50")
        XCTAssertEqual(rows["http:POST /sessions/{id}/complete"]?[8], "0")
        let html = try String(contentsOfFile: index, encoding: .utf8)
        XCTAssertFalse(html.contains("http://") && html.contains("<script src="), "the report must not load anything")

        // Start-up's CPU (the corpus check, the stack) is in the results, for CPU figures over
        // the run's windows to leave out: above zero and at most the first window's cumulative CPU.
        let results = try RunResults.decode(try Data(contentsOf: reportDir.appendingPathComponent("results.json")))
        let atStart = try XCTUnwrap(results.meta.startCpuSeconds)
        let firstWindow = try XCTUnwrap(results.health.min { $0.window < $1.window })
        XCTAssertGreaterThan(atStart, 0)
        XCTAssertLessThanOrEqual(atStart, firstWindow.cpuSeconds)
    }

    func testInvalidProfileIsOneLineNamingFileAndFieldExit2() throws {
        let dir = try Self.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("bad.json").path
        try #"{"name": "x", "duration_s": 10, "scenarios": [{"model": {"type": "per-user-once", "users": 0}, "journeys": {"dailyQuest": 1}}]}"#
            .write(toFile: path, atomically: true, encoding: .utf8)
        let run = try Self.fleet(["run", "--profile", path, "--out", dir.path])
        XCTAssertEqual(run.status, 2)
        XCTAssertEqual(run.err.trimmingCharacters(in: .whitespacesAndNewlines), "\(path): scenarios[0].model.users: must be >= 1")
        let missing = try Self.fleet(["run", "--profile", dir.appendingPathComponent("nope.json").path])
        XCTAssertEqual(missing.status, 2)
        XCTAssertTrue(missing.err.contains("nope.json"), missing.err)
    }

    func testUnreachableTargetFailsFastWithAClearError() throws {
        let started = Date()
        let run = try Self.fleet(["run", "--profile", Self.packageRoot.appendingPathComponent("profiles/smoke.json").path,
                                  "--target", "http://127.0.0.1:9"])
        XCTAssertNotEqual(run.status, 0)
        XCTAssertLessThan(Date().timeIntervalSince(started), 10)
        XCTAssertTrue(run.err.contains("unreachable"), run.err)
    }
}
