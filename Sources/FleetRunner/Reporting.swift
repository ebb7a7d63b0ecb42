import Foundation
import FleetCore
import FleetMetrics
import FleetReport

/// Writes a finished run's report files and its history row, and says where they are.
enum Reporting {
    static func write(_ results: RunResults, options: RunOptions, say: @Sendable (String) -> Void,
                      interrupted: Bool) throws -> RunOutcome {
        let dir = options.outDir + "/" + results.meta.runId
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        var baseline: RunResults?
        if let b = options.baselinePath { baseline = try RunResults.load(path: b) }
        // A shard is a part of a run: its history row would be a fraction of the load (and N
        // pods writing one SQLite file on a shared volume is asking for trouble); the merged
        // run is recorded instead (`fleet merge --history`).
        let shard = results.meta.shard
        var history: [HistoryRow] = []
        if shard != nil {
            say("history: not recorded for a shard; `fleet merge … --history PATH` records the merged run")
        } else {
            history = recordHistory(results, path: options.historyPath, say: say)
        }
        let index = try ReportWriter.write(results, to: dir, baseline: baseline, history: history)
        var lines = Summary.lines(results)
        if let shard {
            // Thresholds judged on one shard's part of the load are not the run's verdict; a
            // shard that failed on them would also make Kubernetes retry it (the same shard twice).
            let failed = results.meta.thresholds.filter { !$0.passed }.count
            lines.append("shard \(shard.label): thresholds are judged by `fleet merge` on all shards"
                         + (failed > 0 ? " (\(failed) fail on this shard's part alone)" : ""))
        } else {
            for v in results.meta.thresholds where !v.passed { lines.append("threshold failed: \(v.message)") }
        }
        for line in lines { say(line) }
        say("report: \(index)")
        let code: Int32
        if interrupted { code = 130 } else if shard == nil, !results.meta.passed { code = 99 } else { code = 0 }
        return RunOutcome(reportDir: dir, indexPath: index, exitCode: code, summaryLines: lines)
    }

    /// Appends the run to the history database and returns the profile's recent runs (a
    /// history that cannot be written is a warning, never a lost report).
    private static func recordHistory(_ results: RunResults, path: String, say: @Sendable (String) -> Void) -> [HistoryRow] {
        do {
            let historyDir = (path as NSString).deletingLastPathComponent
            if !historyDir.isEmpty { try FileManager.default.createDirectory(atPath: historyDir, withIntermediateDirectories: true) }
            let store = try HistoryStore(path: path)
            try store.append(results)
            return try store.list(profile: results.meta.profile, limit: 20)
        } catch {
            say("warning: run history not updated (\(path): \(error))")
            return []
        }
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
