import Foundation
import FleetTestSupport
import XCTest

/// The run's outputs for CI and dashboards, through the built binary: the Prometheus endpoint
/// scraped while the run is in progress, and `--baseline latest` with `--junit` on a second run.
final class NightlyRunTests: XCTestCase {
    private func profile(_ dir: URL, durationS: Int) throws -> String {
        let text = """
        {"name": "nightly-e2e", "seed": 11, "duration_s": \(durationS), "grace_s": 5, "time_scale": 0.02,
         "stack": {"newUserEntitlement": "active", "workers": 8, "assessmentMedianMs": 200, "pollInitialMs": 200, "pollMaxMs": 400},
         "corpus": {"dir": "\(EndToEndTests.packageRoot.path)/audio-corpus", "clip_mix": {"speech": 1}},
         "think_times": {"default": {"type": "uniform", "min_ms": 1000, "max_ms": 5000}},
         "scenarios": [{"name": "daily", "model": {"type": "constant-arrival-rate", "rate": 3, "duration_s": \(durationS), "max_users": 200},
                        "journeys": {"dailyQuest": 1}, "cohorts": {"subscriber": 1}}],
         "thresholds": {"http_errors": ["rate < 0.5"]}}
        """
        let path = dir.appendingPathComponent("p.json").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    static func curl(_ url: String) throws -> (status: Int32, body: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        p.arguments = ["-sf", "--max-time", "5", url]
        let out = Pipe()
        p.standardOutput = out
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return (p.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    func testPrometheusEndpointIsScrapedMidRunAndParses() throws {
        let dir = try EndToEndTests.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: EndToEndTests.fleetBinary)
        p.arguments = ["run", "--profile", try profile(dir, durationS: 12), "--out", dir.path,
                       "--history", dir.appendingPathComponent("h.sqlite").path, "--metrics-listen", "127.0.0.1:0"]
        p.currentDirectoryURL = EndToEndTests.packageRoot
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        let lines = Box<[String]>([])
        out.fileHandleForReading.readabilityHandler = { h in
            let chunk = String(decoding: h.availableData, as: UTF8.self)
            lines.mutate { $0 += chunk.split(separator: "\n").map(String.init) }
        }
        try p.run()
        defer { if p.isRunning { p.terminate() }; p.waitUntilExit() }
        // Wait (bounded) for the line that names the endpoint, then scrape until requests show.
        let deadline = Date().addingTimeInterval(60)
        var url: String?
        _ = eventually(within: 60, every: 0.05) {
            url = lines.value.first { $0.hasPrefix("metrics: ") }.map { String($0.dropFirst("metrics: ".count)) }
            return url != nil || !p.isRunning
        }
        let endpoint = try XCTUnwrap(url, "no 'metrics:' line: \(lines.value)")
        var scrape = ""
        var parsed: [Sample] = []
        _ = try eventually(within: max(0, deadline.timeIntervalSinceNow), every: 0.25) {
            guard p.isRunning else { return true }
            let r = try Self.curl(endpoint)
            guard r.status == 0 else { return false }
            scrape = r.body
            parsed = try Exposition.parse(scrape)
            return parsed.contains(where: { $0.name == "fleet_requests_total" && $0.value > 0 })
                && parsed.contains(where: { $0.name == "fleet_assessment_turnaround_seconds_count" && $0.value > 0 })
        }
        XCTAssertTrue(p.isRunning, "the scrape must happen while the run is in progress")
        let elapsed = try XCTUnwrap(parsed.first { $0.name == "fleet_elapsed_seconds" }?.value)
        XCTAssertLessThan(elapsed, 17, "scraped mid-run (12 s of arrivals, 5 s of grace)")
        let home = parsed.filter { $0.name == "fleet_requests_total" && $0.labels["status"] == "200" }
        XCTAssertFalse(home.isEmpty, scrape)
        XCTAssertTrue(home.allSatisfy { $0.labels["endpoint"] != nil })
        XCTAssertNotNil(parsed.first { $0.name == "fleet_active_users" })
        XCTAssertTrue(parsed.contains { $0.name == "fleet_journeys_total" && $0.labels["outcome"] == "completed" })
        // Histogram buckets: cumulative, ending in +Inf equal to _count.
        for metric in ["fleet_assessment_turnaround_seconds", "fleet_settlement_seconds", "fleet_scheduling_lag_seconds"] {
            let buckets = parsed.filter { $0.name == metric + "_bucket" }
            XCTAssertEqual(buckets.last?.labels["le"], "+Inf", metric)
            XCTAssertEqual(buckets.map(\.value), buckets.map(\.value).sorted(), "\(metric) buckets are cumulative")
            XCTAssertEqual(buckets.last?.value, parsed.first { $0.name == metric + "_count" }?.value, metric)
        }
        XCTAssertEqual(try Self.curl(endpoint.replacingOccurrences(of: "/metrics", with: "/other")).status, 22, "404 elsewhere")
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 0)
    }

    func testSecondRunComparesWithTheLatestAndWritesJUnit() throws {
        let dir = try EndToEndTests.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = try profile(dir, durationS: 8)
        let history = dir.appendingPathComponent("h.sqlite").path
        let first = try EndToEndTests.fleet(["run", "--profile", path, "--out", dir.path, "--history", history, "--baseline", "latest"])
        XCTAssertEqual(first.status, 0, first.out + first.err)
        XCTAssertTrue(first.out.contains("baseline: no earlier run of profile nightly-e2e"), first.out)
        let junit = dir.appendingPathComponent("junit.xml").path
        let second = try EndToEndTests.fleet(["run", "--profile", path, "--out", dir.path, "--history", history,
                                              "--baseline", "latest", "--junit", junit])
        XCTAssertTrue([0, 97].contains(second.status), "\(second.status): \(second.out)\n\(second.err)")
        XCTAssertTrue(second.out.contains("baseline: latest run of profile nightly-e2e, nightly-e2e-"), second.out)
        XCTAssertEqual(second.out.contains("REGRESSION against baseline"), second.status == 97, second.out)
        let xml = try String(contentsOfFile: junit, encoding: .utf8)
        XCTAssertTrue(xml.contains("<testcase name=\"http_errors rate &lt; 0.5\" classname=\"fleet.thresholds\""), xml)
        XCTAssertTrue(xml.contains("<testsuite name=\"regression vs nightly-e2e-"), xml)
        XCTAssertTrue(xml.contains("<testcase name=\"assessment_turnaround p50\" classname=\"fleet.regression\""), xml)
        let bad = try EndToEndTests.fleet(["run", "--profile", path, "--baseline", dir.appendingPathComponent("none.json").path])
        XCTAssertEqual(bad.status, 2)
        XCTAssertTrue(bad.err.contains("--baseline: ") && bad.err.contains("none.json"), bad.err)
    }
}

/// One sample line of the Prometheus text format.
struct Sample {
    var name: String
    var labels: [String: String]
    var value: Double
}

/// A strict reader of the text exposition format (0.0.4): comment lines are `# HELP name text`
/// or `# TYPE name counter|gauge|histogram|summary|untyped`; every sample belongs to a declared
/// family; label values are quoted with \\, \" and \n escapes; values are floats or ±Inf/NaN.
enum Exposition {
    struct Bad: Error, CustomStringConvertible { var description: String }

    static func parse(_ text: String) throws -> [Sample] {
        var types: [String: String] = [:]
        var out: [Sample] = []
        for (n, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = String(raw)
            if line.isEmpty { continue }
            if line.hasPrefix("#") {
                let parts = line.split(separator: " ", maxSplits: 3).map(String.init)
                guard parts.count >= 3, ["HELP", "TYPE"].contains(parts[1]) else { throw Bad(description: "line \(n + 1): bad comment '\(line)'") }
                if parts[1] == "TYPE" {
                    guard parts.count == 4, ["counter", "gauge", "histogram", "summary", "untyped"].contains(parts[3]) else {
                        throw Bad(description: "line \(n + 1): bad TYPE '\(line)'")
                    }
                    types[parts[2]] = parts[3]
                }
                continue
            }
            let s = try sample(line, n + 1)
            let family = types[s.name] != nil ? s.name
                : ["_bucket", "_sum", "_count"].compactMap { s.name.hasSuffix($0) ? String(s.name.dropLast($0.count)) : nil }
                    .first { types[$0] == "histogram" }
            guard family != nil else { throw Bad(description: "line \(n + 1): sample \(s.name) of no declared family") }
            out.append(s)
        }
        return out
    }

    static func sample(_ line: String, _ n: Int) throws -> Sample {
        var i = line.startIndex
        while i < line.endIndex, line[i].isLetter || line[i].isNumber || line[i] == "_" || line[i] == ":" { i = line.index(after: i) }
        let name = String(line[..<i])
        guard let first = name.first, first.isLetter || first == "_" else { throw Bad(description: "line \(n): bad name in '\(line)'") }
        var labels: [String: String] = [:]
        if i < line.endIndex, line[i] == "{" {
            i = line.index(after: i)
            while line[i] != "}" {
                let eq = try XCTUnwrapIndex(line, from: i, of: "=", n)
                let key = String(line[i..<eq])
                i = line.index(after: eq)
                guard line[i] == "\"" else { throw Bad(description: "line \(n): unquoted label value") }
                i = line.index(after: i)
                var value = ""
                while line[i] != "\"" {
                    if line[i] == "\\" {
                        i = line.index(after: i)
                        switch line[i] {
                        case "n": value.append("\n")
                        case "\\", "\"": value.append(line[i])
                        default: throw Bad(description: "line \(n): bad escape")
                        }
                    } else { value.append(line[i]) }
                    i = line.index(after: i)
                }
                labels[key] = value
                i = line.index(after: i)
                if line[i] == "," { i = line.index(after: i) }
            }
            i = line.index(after: i)
        }
        let rest = line[i...].split(separator: " ")
        guard let v = rest.first, let value = Double(v.replacingOccurrences(of: "Inf", with: "infinity")) else {
            throw Bad(description: "line \(n): bad value in '\(line)'")
        }
        return Sample(name: name, labels: labels, value: value)
    }

    private static func XCTUnwrapIndex(_ s: String, from: String.Index, of c: Character, _ n: Int) throws -> String.Index {
        guard let i = s[from...].firstIndex(of: c) else { throw Bad(description: "line \(n): no '\(c)'") }
        return i
    }
}
