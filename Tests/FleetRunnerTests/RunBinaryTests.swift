import Foundation
import FleetTestSupport
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
        p.arguments = ["run", "--profile", path, "--out", dir.path, "--history", dir.appendingPathComponent("h.sqlite").path,
                       "--metrics-listen", "127.0.0.1:0"]
        p.currentDirectoryURL = E2E.packageRoot
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        let text = Box<String>("")
        let readerDone = DispatchSemaphore(value: 0)
        let reader = Thread {
            while true {
                let d = out.fileHandleForReading.availableData
                if d.isEmpty { break }
                text.mutate { $0 += String(decoding: d, as: UTF8.self) }
            }
            readerDone.signal()
        }
        try p.run()
        reader.start()
        defer { if p.isRunning { kill(p.processIdentifier, SIGKILL) } }
        // Wait for the run to start (the debug build checks the whole corpus first, which takes
        // a while on a busy machine; the signal handlers are installed by then) and for users to
        // be walking (the live metrics show five active).
        _ = eventually(within: 120, every: 0.05) { text.value.contains("\nrun ") || !p.isRunning }
        XCTAssertTrue(text.value.contains("\nrun "), text.value)
        let metrics = try XCTUnwrap(text.value.split(separator: "\n").first { $0.hasPrefix("metrics: ") }, text.value)
            .dropFirst("metrics: ".count)
        let walking = try eventually(within: 30, every: 0.1) {
            let r = try NightlyRunTests.curl(String(metrics))
            guard r.status == 0 else { return !p.isRunning }
            let active = try Exposition.parse(r.body).first { $0.name == "fleet_active_users" }?.value ?? 0
            return active >= 5 || !p.isRunning
        }
        XCTAssertTrue(walking, "users walking")
        XCTAssertTrue(p.isRunning, text.value)
        kill(p.processIdentifier, SIGINT)
        let firstStop = Date()
        _ = eventually(within: 5, every: 0.02) { text.value.contains("stopping:") }
        XCTAssertTrue(text.value.contains("stopping: no new users"), text.value)
        XCTAssertFalse(eventually(within: 0.5, every: 0.02) { !p.isRunning }, "the first Ctrl-C must leave users their grace period")
        kill(p.processIdentifier, SIGINT)
        _ = eventually(within: 20, every: 0.05) { !p.isRunning }
        XCTAssertFalse(p.isRunning, "a second Ctrl-C must stop the run at once")
        p.waitUntilExit()
        XCTAssertLessThan(Date().timeIntervalSince(firstStop), 20, "well within the 60 s grace")
        XCTAssertEqual(p.terminationStatus, 130, text.value)
        XCTAssertEqual(readerDone.wait(timeout: .now() + 5), .success, "the output was read to its end")
        let report = try XCTUnwrap(Self.reportDir(in: text.value), text.value)
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
