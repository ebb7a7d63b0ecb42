import Foundation
import FleetMetrics
import FleetRunner
import FleetTestSupport
import XCTest

/// A `kill -9` of `fleet run` halfway leaves a run folder that `fleet report --recover` turns into
/// a report holding every window but the last (issue 16 §4).
final class RecoverTests: XCTestCase {
    typealias E2E = EndToEndTests

    func testKillNineHalfwayRecoversEveryWindowButTheLast() throws {
        let dir = try E2E.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = try RunBinaryTests.writeProfile("""
        {"name": "hardstop", "seed": 9, "duration_s": 40, "grace_s": 5, "time_scale": 0.05,
         "stack": {"newUserEntitlement": "active", "workers": 8, "assessmentMedianMs": 100},
         "corpus": {"dir": "\(E2E.packageRoot.path)/audio-corpus"},
         "think_times": {"default": {"type": "constant", "ms": 2000}},
         "scenarios": [{"name": "open", "model": {"type": "constant-arrival-rate", "rate": 3, "duration_s": 40},
                        "journeys": {"dailyQuest": 1}, "cohorts": {"subscriber": 1}}]}
        """, in: dir)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: E2E.fleetBinary)
        p.arguments = ["run", "--profile", path, "--out", dir.path, "--history", dir.appendingPathComponent("h.sqlite").path]
        p.currentDirectoryURL = E2E.packageRoot
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        let text = Box<String>("")
        let reader = Thread {
            while true {
                let d = out.fileHandleForReading.availableData
                if d.isEmpty { break }
                text.mutate { $0 += String(decoding: d, as: UTF8.self) }
            }
        }
        try p.run()
        reader.start()
        defer { if p.isRunning { kill(p.processIdentifier, SIGKILL) } }
        _ = eventually(within: 120, every: 0.05) { text.value.contains("\nrun ") || !p.isRunning }
        let started = Date()
        let line = try XCTUnwrap(text.value.split(separator: "\n").first { $0.hasPrefix("run ") }, text.value)
        let runId = String(line.dropFirst(4).prefix { $0 != ":" })
        // Halfway: the kill lands once the stream holds windows 0 … 10 (about 11 s into the 40 s run).
        let streamPath = dir.appendingPathComponent(runId).appendingPathComponent(ResultStream.fileName).path
        let halfway = eventually(within: 60, every: 0.1) {
            Self.lastStreamedWindow(streamPath) >= 10 || !p.isRunning
        }
        XCTAssertTrue(halfway, "the run streamed ten windows")
        XCTAssertTrue(p.isRunning, text.value)
        kill(p.processIdentifier, SIGKILL)
        let killedAfter = Date().timeIntervalSince(started)
        p.waitUntilExit()
        XCTAssertEqual(p.terminationReason, .uncaughtSignal)
        // Its embedded stack (started with a config file named after the run's pid) stops by itself.
        let marker = "fleet-stack-\(p.processIdentifier)-"
        XCTAssertTrue(Self.processes(containing: marker).count <= 1, "one embedded stack at most")
        _ = eventually(within: 5, every: 0.1) { Self.processes(containing: marker).isEmpty }
        XCTAssertEqual(Self.processes(containing: marker), [], "the embedded stack outlived the killed run")
        let runDir = dir.appendingPathComponent(runId)
        XCTAssertFalse(FileManager.default.fileExists(atPath: runDir.appendingPathComponent("index.html").path),
                       "a killed run writes no report of its own")

        let recovered = try E2E.fleet(["report", "--recover", runDir.path])
        XCTAssertEqual(recovered.status, 0, recovered.out + recovered.err)
        let results = try RunBinaryTests.results(runDir)
        let health = try XCTUnwrap(results["health"] as? [[String: Any]])
        let windows = health.compactMap { ($0["window"] as? NSNumber)?.intValue }
        // Windows 0 … k-1 closed before the kill at k ≈ 12 s; the stream holds all of them but
        // (at most) the one that was open, and the monitor's one-second tick may lag by one more.
        let closed = Int(killedAfter)
        XCTAssertGreaterThanOrEqual(windows.max() ?? -1, closed - 2, "\(windows), killed after \(killedAfter) s")
        XCTAssertLessThanOrEqual(windows.max() ?? 99, closed + 1)
        let first = windows.min() ?? 99
        XCTAssertLessThanOrEqual(first, 1, "\(windows)")
        XCTAssertEqual(windows, Array(first...(windows.max() ?? first)), "no window missing in between")
        let endpoints = try XCTUnwrap(results["endpoints"] as? [[String: Any]])
        XCTAssertFalse(endpoints.isEmpty, "the requests measured before the kill are in the report")
        let notes = (results["meta"] as? [String: Any])?["notes"] as? [String] ?? []
        XCTAssertTrue(notes.contains { $0.hasPrefix("recovered:") }, "\(notes)")
        XCTAssertTrue(FileManager.default.fileExists(atPath: runDir.appendingPathComponent("index.html").path))
    }

    /// The last window the run's stream says is closed (`through` of its last whole line), or -1.
    static func lastStreamedWindow(_ path: String) -> Int {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return -1 }
        let whole = text.hasSuffix("\n") ? text : String(text[..<(text.lastIndex(of: "\n") ?? text.startIndex)])
        guard let last = whole.split(separator: "\n").last,
              let object = try? JSONSerialization.jsonObject(with: Data(last.utf8)) as? [String: Any] else { return -1 }
        return (object["through"] as? NSNumber)?.intValue ?? -1
    }

    /// Pids whose command line contains `text`.
    static func processes(containing text: String) -> [Int32] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { Int32($0) }.filter { pid in
            guard let d = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return false }
            return String(decoding: d.map { $0 == 0 ? 32 : $0 }, as: UTF8.self).contains(text)
        }
    }
}
