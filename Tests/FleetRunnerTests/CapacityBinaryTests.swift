import Foundation
import XCTest

/// `fleet capacity` as a user runs it, against the embedded stack, bounded to about a minute.
final class CapacityBinaryTests: XCTestCase {
    /// 2 workers × a fixed 250 ms: 8 assessments/s, 4 daily quests/s (2 assessments each).
    func profile(debug: String = "") -> String {
        """
        {"name": "capacity-test", "seed": 21, "duration_s": 600, "grace_s": 5, "time_scale": 0.02, "max_lag_ms": 300,
         "stack": {"newUserEntitlement": "active", "workers": 2, "assessmentMedianMs": 250, "assessmentSigma": 0, "rateLimitPerSecond": 0},
         "corpus": {"dir": "\(EndToEndTests.packageRoot.path)/audio-corpus", "clip_mix": {"speech": 1}},
         "checks": {"enabled": false}, \(debug)
         "capacity": {"start_rate": 1.5, "growth": 4, "window_s": 2, "warmup_windows": 3, "steady_windows": 4,
                      "min_step_s": 18, "max_step_s": 24, "cooldown_s": 2,
                      "slo": {"turnaround_p99_ms": 6000, "settlement_p99_ms": 3000, "error_rate": 0.02}},
         "scenarios": [{"name": "quest", "model": {"type": "constant-arrival-rate", "rate": 1, "duration_s": 10},
                        "journeys": {"dailyQuest": 1}, "cohorts": {"subscriber": 1}}]}
        """
    }

    func testASearchPassesBelowTheQueueingLimitAndFailsOnTurnaroundAboveIt() throws {
        let dir = try EndToEndTests.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("capacity.json").path
        try profile().write(toFile: path, atomically: true, encoding: .utf8)
        let began = Date()
        let r = try EndToEndTests.fleet(["capacity", "--profile", path, "--out", dir.path, "--max-duration", "55"], timeout: 150)
        XCTAssertLessThan(Date().timeIntervalSince(began), 100, "bounded by --max-duration (plus the stack's start and the last drain)")
        XCTAssertEqual(r.status, 0, r.out + r.err)
        // 1.5/s is 38 % of the 4/s bound; 6/s is 150 % of it: the queue grows and turnaround is what breaks.
        XCTAssertTrue(r.out.contains("step 1: offered 1.50 users/s → pass"), r.out)
        XCTAssertTrue(r.out.contains("step 2: offered 6.00 users/s → fail (turnaround p99"), r.out)
        XCTAssertTrue(r.out.contains("capacity: limiting SLO: turnaround p99"), r.out)
        XCTAssertTrue(r.out.contains("capacity: database reached (the stack's own count): "), r.out)
        let run = try XCTUnwrap(try FileManager.default.contentsOfDirectory(atPath: dir.path).first { $0.hasPrefix("capacity-capacity-test-") })
        let csv = try String(contentsOfFile: dir.path + "/\(run)/capacity.csv", encoding: .utf8).split(separator: "\n")
        XCTAssertTrue(csv[0].hasPrefix("step,offered_rate,verdict,limit,"))
        XCTAssertGreaterThanOrEqual(csv.count, 3, "a header and a row per step")
        XCTAssertTrue(csv[1].hasPrefix("1,1.5,pass,"), String(csv[1]))
        XCTAssertTrue(csv[2].hasPrefix("2,6,fail,"), String(csv[2]))
        let html = try String(contentsOfFile: dir.path + "/\(run)/index.html", encoding: .utf8)
        XCTAssertTrue(html.contains("<section id=\"capacity\">"))
        XCTAssertTrue(html.contains("Offered load against achieved throughput"))
    }

    func testAStarvedGeneratorIsReportedAsGeneratorBound() throws {
        let dir = try EndToEndTests.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("capacity.json").path
        // Each step's generator is stalled for 1.5 s after its warm-up: lag p99 far over the 300 ms bound.
        try profile(debug: "\"debug\": {\"stall_at_s\": 8, \"stall_s\": 1.5},").write(toFile: path, atomically: true, encoding: .utf8)
        let r = try EndToEndTests.fleet(["capacity", "--profile", path, "--out", dir.path, "--max-duration", "35"], timeout: 120)
        XCTAssertEqual(r.status, 1, r.out + r.err)
        XCTAssertTrue(r.out.contains("step 1: offered 1.50 users/s → invalid (scheduling lag p99"), r.out)
        XCTAssertTrue(r.out.contains("capacity: generator-bound at"), r.out)
        XCTAssertFalse(r.out.contains("limiting SLO"), r.out)
    }

    func testCtrlCEndsTheSearchAndStillWritesWhatWasFound() throws {
        let dir = try EndToEndTests.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("capacity.json").path
        try profile().write(toFile: path, atomically: true, encoding: .utf8)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: EndToEndTests.fleetBinary)
        p.arguments = ["capacity", "--profile", path, "--out", dir.path, "--max-duration", "120"]
        p.currentDirectoryURL = EndToEndTests.packageRoot
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        try p.run()
        // Interrupt once the first step has been reported (read from the pipe, not guessed by time).
        var text = ""
        let reader = out.fileHandleForReading
        let deadline = Date().addingTimeInterval(90)
        while !text.contains("step 1:"), Date() < deadline {
            let chunk = reader.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        XCTAssertTrue(text.contains("step 1:"), text)
        kill(p.processIdentifier, SIGINT)
        text += String(decoding: reader.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 130, text)
        XCTAssertTrue(text.contains("stopped: interrupted"), text)
        let run = try XCTUnwrap(try FileManager.default.contentsOfDirectory(atPath: dir.path).first { $0.hasPrefix("capacity-capacity-test-") })
        let csv = try String(contentsOfFile: dir.path + "/\(run)/capacity.csv", encoding: .utf8).split(separator: "\n")
        XCTAssertGreaterThanOrEqual(csv.count, 2, "step 1 at least")
        XCTAssertTrue(csv[1].hasPrefix("1,1.5,pass,"), String(csv[1]))
    }
}
