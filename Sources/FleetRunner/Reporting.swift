import Foundation
import FleetCore
import FleetMetrics
import FleetReport
import FleetStats

/// Writes a finished run's report files and its history row, and says where they are.
enum Reporting {
    static func write(_ results: RunResults, options: RunOptions, say: @Sendable (String) -> Void,
                      interrupted: Bool) throws -> RunOutcome {
        let dir = options.outDir + "/" + results.meta.runId
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        var baselinePath = options.baselinePath == "latest" ? nil : options.baselinePath
        var history: [HistoryRow] = []
        do {
            let historyDir = (options.historyPath as NSString).deletingLastPathComponent
            if !historyDir.isEmpty { try FileManager.default.createDirectory(atPath: historyDir, withIntermediateDirectories: true) }
            let store = try HistoryStore(path: options.historyPath)
            // `latest` is looked up before this run is recorded, so a run is never its own baseline.
            if options.baselinePath == "latest" {
                if let l = try store.latestResults(profile: results.meta.profile) {
                    baselinePath = l.path
                    say("baseline: latest run of profile \(results.meta.profile), \(l.runId)")
                } else {
                    say("baseline: no earlier run of profile \(results.meta.profile) in \(options.historyPath); nothing to compare")
                }
            }
            try store.append(results, resultsPath: dir + "/results.json")
            history = try store.list(profile: results.meta.profile, limit: 20)
        } catch {
            say("warning: run history not updated (\(options.historyPath): \(error))")
        }
        let baseline = try baselinePath.map { try RunResults.load(path: $0) }
        var comparison: RunComparison?
        if let baseline {
            do {
                comparison = try Comparer(minEffect: results.meta.minEffect ?? 0.05, minAbsoluteMs: results.meta.minAbsoluteMs ?? 10)
                    .compare(base: baseline, new: results, force: options.forceCompare)
            } catch {
                say("baseline not compared: \(error)")
            }
        }
        let index = try ReportWriter.write(results, to: dir, baseline: baseline, history: history, comparison: comparison)
        var lines = Summary.lines(results)
        for v in results.meta.thresholds where !v.passed { lines.append("threshold failed: \(v.message)") }
        if let c = comparison {
            lines.append(contentsOf: CompareText.summary(c))
        }
        for line in lines { say(line) }
        if let junit = options.junitPath {
            try JUnitReport.write(JUnitReport.render(results, comparison: comparison), to: junit)
            say("junit: \(junit)")
        }
        say("report: \(index)")
        let code = ExitStatus.of(interrupted: interrupted, thresholdsFailed: !results.meta.passed,
                                 regressed: comparison?.regressed ?? false)
        return RunOutcome(reportDir: dir, indexPath: index, exitCode: code, summaryLines: lines)
    }
}

/// The few lines printed at the end of a run: the figures people wait for, and the warnings.
enum Summary {
    static func lines(_ r: RunResults) -> [String] {
        var out: [String] = []
        for note in r.meta.notes { out.append("NOTE: \(note)") }
        for name in ["assessment_turnaround", "assessment_turnaround_server", "settlement"] {
            guard let m = r.metric(name), m.corrected.count > 0 else { continue }
            let h = m.corrected
            out.append("\(name): n=\(h.count) p50 \(ms(h.value(atPercentile: 50))) ms · p99 \(ms(h.value(atPercentile: 99))) ms"
                       + " · max \(ms(h.max)) ms")
        }
        let t = r.requestTotals
        // Cohort warm-ups are recorded as a journey named "warmup"; they are set-up, not load, so
        // they are counted apart from the journeys the profile asked for.
        let real = r.measuredJourneys, warmups = r.warmupJourneys
        let done = real.reduce(Int64(0)) { $0 + $1.completed }
        let started = real.reduce(Int64(0)) { $0 + $1.started }
        var line = "requests \(t.requests), errors \(t.errors); journeys completed \(done)/\(started)"
        if !warmups.isEmpty {
            line += "; cohort warm-ups \(warmups.reduce(Int64(0)) { $0 + $1.completed })/\(warmups.reduce(Int64(0)) { $0 + $1.started })"
        }
        out.append(line)
        return out
    }

    static func ms(_ micros: Int64) -> String { String(format: "%.1f", Double(micros) / 1000) }
}
