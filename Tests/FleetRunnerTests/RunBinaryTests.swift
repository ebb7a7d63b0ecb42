import Foundation
import XCTest

/// The built `fleet` binary as a user meets it: thresholds that fail, two scenarios in one run,
/// Ctrl-C twice, and `fleet profile validate` (see EndToEndTests for the helpers).
final class RunBinaryTests: XCTestCase {
    typealias E2E = EndToEndTests

    static func writeProfile(_ json: String, in dir: URL, name: String = "p.json") throws -> String {
        let path = dir.appendingPathComponent(name).path
        try json.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    static func reportDir(in out: String) -> URL? {
        guard let line = out.split(separator: "\n").last(where: { $0.hasPrefix("report: ") }) else { return nil }
        return URL(fileURLWithPath: String(line.dropFirst("report: ".count))).deletingLastPathComponent()
    }

    static func results(_ dir: URL) throws -> [String: Any] {
        let data = try Data(contentsOf: dir.appendingPathComponent("results.json"))
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    /// An impossible threshold fails the run with exit 99 and says by how much; both scenarios ran.
    func testFailedThresholdExits99AndTwoScenariosBothRun() throws {
        let dir = try E2E.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = try Self.writeProfile("""
        {"name": "two", "seed": 11, "duration_s": 30, "grace_s": 10, "time_scale": 0.02,
         "stack": {"newUserEntitlement": "active", "workers": 8, "assessmentMedianMs": 100},
         "corpus": {"dir": "\(E2E.packageRoot.path)/audio-corpus"},
         "think_times": {"default": {"type": "constant", "ms": 1000}},
         "scenarios": [
           {"name": "first", "model": {"type": "per-user-once", "users": 6, "ramp_s": 1, "max_duration_s": 20},
            "journeys": {"dailyQuest": 1}, "cohorts": {"subscriber": 1}},
           {"name": "second", "start_s": 2, "model": {"type": "constant-arrival-rate", "rate": 4, "duration_s": 2},
            "journeys": {"dailyQuest": 1}, "cohorts": {"subscriber": 1}}],
         "thresholds": {"assessment_turnaround": ["p99 < 1"], "http_errors": ["rate < 0.5"]}}
        """, in: dir)
        let run = try E2E.fleet(["run", "--profile", path, "--out", dir.path, "--history", dir.appendingPathComponent("h.sqlite").path])
        XCTAssertEqual(run.status, 99, "stdout:\n\(run.out)\nstderr:\n\(run.err)")
        let failed = run.out.split(separator: "\n").filter { $0.hasPrefix("threshold failed: ") }
        XCTAssertEqual(failed.count, 1, run.out)
        XCTAssertTrue(failed.first?.contains("assessment_turnaround p99 < 1: ") ?? false, run.out)
        XCTAssertTrue(failed.first?.contains(" ms, over by ") ?? false, run.out)
        let report = try XCTUnwrap(Self.reportDir(in: run.out), run.out)
        let counters = try XCTUnwrap(try Self.results(report)["counters"] as? [String: Any], "results.json has counters")
        XCTAssertEqual((counters["users_started:first"] as? NSNumber)?.intValue, 6)
        XCTAssertGreaterThan((counters["users_started:second"] as? NSNumber)?.intValue ?? 0, 0, "\(counters)")
    }

    /// Ctrl-C twice: the first stops arrivals (grace 60 s), the second cancels every user at once;
    /// the report is written from what was measured and the exit status is 130.
    func testTwoInterruptsStopAtOnceAndStillWriteTheReport() throws {
        let dir = try E2E.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = try Self.writeProfile("""
        {"name": "sigint", "seed": 5, "duration_s": 120, "grace_s": 60, "time_scale": 1,
         "stack": {"newUserEntitlement": "active", "workers": 8, "assessmentMedianMs": 100},
         "corpus": {"dir": "\(E2E.packageRoot.path)/audio-corpus"},
         "think_times": {"default": {"type": "constant", "ms": 1000}},
         "scenarios": [{"name": "open", "model": {"type": "constant-arrival-rate", "rate": 5, "duration_s": 120},
                        "journeys": {"dailyQuest": 1}, "cohorts": {"subscriber": 1}}]}
        """, in: dir)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: E2E.fleetBinary)
        p.arguments = ["run", "--profile", path, "--out", dir.path, "--history", dir.appendingPathComponent("h.sqlite").path]
        p.currentDirectoryURL = E2E.packageRoot
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        let text = Locked<String>("")
        let reader = Thread {
            while true {
                let d = out.fileHandleForReading.availableData
                if d.isEmpty { break }
                text.set(text.get() + String(decoding: d, as: UTF8.self))
            }
        }
        try p.run()
        reader.start()
        defer { if p.isRunning { kill(p.processIdentifier, SIGKILL) } }
        // Wait for the run to start (the debug build checks the whole corpus first, which takes
        // a while on a busy machine; the signal handlers are installed by then) and for users to
        // be walking.
        let ready = Date().addingTimeInterval(120)
        while !text.get().contains("\nrun "), Date() < ready, p.isRunning { usleep(50_000) }
        XCTAssertTrue(text.get().contains("\nrun "), text.get())
        usleep(3_000_000)
        XCTAssertTrue(p.isRunning, text.get())
        kill(p.processIdentifier, SIGINT)
        let firstStop = Date()
        while !text.get().contains("stopping:"), Date() < firstStop.addingTimeInterval(5) { usleep(20_000) }
        XCTAssertTrue(text.get().contains("stopping: no new users"), text.get())
        usleep(500_000)
        XCTAssertTrue(p.isRunning, "the first Ctrl-C must leave users their grace period")
        kill(p.processIdentifier, SIGINT)
        let deadline = Date().addingTimeInterval(20)
        while p.isRunning, Date() < deadline { usleep(50_000) }
        XCTAssertFalse(p.isRunning, "a second Ctrl-C must stop the run at once")
        p.waitUntilExit()
        XCTAssertLessThan(Date().timeIntervalSince(firstStop), 20, "well within the 60 s grace")
        XCTAssertEqual(p.terminationStatus, 130, text.get())
        usleep(200_000)
        let report = try XCTUnwrap(Self.reportDir(in: text.get()), text.get())
        XCTAssertTrue(FileManager.default.fileExists(atPath: report.appendingPathComponent("index.html").path))
        let meta = try XCTUnwrap(try Self.results(report)["meta"] as? [String: Any])
        let notes = (meta["notes"] as? [String]) ?? []
        XCTAssertTrue(notes.contains { $0.hasPrefix("interrupted") }, "\(notes)")
        let journeys = try XCTUnwrap(try Self.results(report)["journeys"] as? [[String: Any]])
        XCTAssertFalse(journeys.isEmpty, "users walked before the stop and were recorded")
    }

    /// `fleet profile validate` lists every problem of a bad file with its path, exit 2; a good
    /// file given with it still gets its `ok` line.
    func testProfileValidateReportsEveryProblemWithItsPath() throws {
        let dir = try E2E.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let bad = try Self.writeProfile("""
        {"name": "bad", "duration_s": 10, "grace": 3,
         "scenarios": [{"model": {"type": "ramping-arrival-rate", "stages": [{"duration_s": 0, "rate": 5}]}, "journeys": {"dailyQuest": 1}},
                       {"start_s": 20, "model": {"type": "constant-population", "users": 2.5, "duration_s": 5}, "journeys": {}}],
         "debug": {"stall_s": 0},
         "thresholds": {"foo": ["p99 < 10"]}, "probabilities": {"dailyQuest.fecth_evidence": 0.5},
         "think_times": {"raed": {"type": "constant", "ms": 1}}}
        """, in: dir, name: "bad.json")
        let good = E2E.packageRoot.appendingPathComponent("profiles/nightly.json").path
        let run = try E2E.fleet(["profile", "validate", bad, good])
        XCTAssertEqual(run.status, 2)
        let lines = run.err.split(separator: "\n").map(String.init)
        for expected in ["grace: unknown field", "scenarios[0].model.stages[0].duration_s: must be > 0",
                         "scenarios[1].start_s: must be < duration_s (10)", "scenarios[1].model.users: must be an integer",
                         "scenarios[1].journeys: must not be empty", "debug.stall_at_s: is required", "debug.stall_s: must be > 0",
                         "thresholds.foo: no metric 'foo'", "probabilities.dailyQuest.fecth_evidence: dailyQuest makes no decision",
                         "think_times.raed: no step pauses on 'raed'"] {
            XCTAssertTrue(lines.contains("\(bad): \(expected)") || lines.contains { $0.hasPrefix("\(bad): \(expected)") },
                          "missing '\(expected)' in:\n\(run.err)")
        }
        XCTAssertTrue(run.out.contains("\(good): ok (2 scenarios"), run.out)
    }
}
