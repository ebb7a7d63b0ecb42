import Foundation
import FleetCore
import FleetMetrics
import FleetReport
import FleetStats

/// Writes a finished run's report files and its history row, and says where they are.
enum Reporting {
    static func write(_ results: RunResults, options: RunOptions, say: @Sendable (String) -> Void,
                      interrupted: Bool, extras: (String) throws -> Void = { _ in }) throws -> RunOutcome {
        let dir = options.outDir + "/" + results.meta.runId
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        // A shard is a part of a run: its history row would be a fraction of the load (and N
        // pods writing one SQLite file on a shared volume is asking for trouble); the merged
        // run is recorded instead (`fleet merge --history`).
        let shard = results.meta.shard
        var history: ReportPublisher.HistoryUse?
        if shard != nil {
            say("history: not recorded for a shard; `fleet merge … --history PATH` records the merged run")
        } else {
            history = ReportPublisher.HistoryUse(path: options.historyPath, resultsPath: dir + "/results.json",
                                                 lookUpLatest: options.baselinePath == "latest")
        }
        var comparison: RunComparison?
        let index = try ReportPublisher.publish(results, to: dir, history: history) { outcome in
            var baselinePath = options.baselinePath == "latest" ? nil : options.baselinePath
            if options.baselinePath == "latest", outcome.lookedUp {
                if let l = outcome.latest {
                    baselinePath = l.path
                    say("baseline: latest run of profile \(results.meta.profile), \(l.runId)")
                } else {
                    say("baseline: no earlier run of profile \(results.meta.profile) in \(options.historyPath); nothing to compare")
                }
            }
            if let problem = outcome.problem { say("warning: run history not updated (\(options.historyPath): \(problem))") }
            let baseline = try baselinePath.map { try RunResults.load(path: $0) }
            if let baseline {
                do {
                    comparison = try Comparer(minEffect: results.meta.minEffect ?? 0.05, minAbsoluteMs: results.meta.minAbsoluteMs ?? 10)
                        .compare(base: baseline, new: results, force: options.forceCompare)
                } catch {
                    say("baseline not compared: \(error)")
                }
            }
            return ReportPublisher.BaselineChoice(baseline: baseline, comparison: comparison)
        }.index
        try extras(dir)
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
        lines += Summary.violationLines(results)
        if let c = comparison {
            lines.append(contentsOf: CompareText.summary(c))
        }
        for line in lines { say(line) }
        if let junit = options.junitPath {
            try JUnitReport.write(JUnitReport.render(results, comparison: comparison), to: junit)
            say("junit: \(junit)")
        }
        say("report: \(index)")
        // A violation is a fact about the stack whichever shard saw it: it sets the shard's exit too.
        let code = ExitCode.of(interrupted: interrupted, violated: !results.violations.isEmpty,
                               thresholdsFailed: shard == nil && !results.meta.passed, regressed: comparison?.regressed ?? false)
        return RunOutcome(reportDir: dir, indexPath: index, exitCode: code, summaryLines: lines)
    }
}

/// The few lines printed at the end of a run: the figures people wait for, and the warnings.
enum Summary {
    static func lines(_ r: RunResults) -> [String] {
        var out: [String] = []
        for note in r.meta.notes { out.append("NOTE: \(note)") }
        for name in MetricName.headline {
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

    /// Counts per invariant and the first violation of each, for the terminal.
    static func violationLines(_ r: RunResults) -> [String] {
        guard !r.violations.isEmpty else { return [] }
        var out = ["INVARIANTS VIOLATED: \(r.violations.count) (violations.csv, traces/)"]
        for inv in Invariant.allCases {
            let vs = r.violations.filter { $0.invariant == inv }
            guard let first = vs.first else { continue }
            out.append("  \(inv.rawValue): \(vs.count) · first: user \(first.user) at \(String(format: "%.1f", first.firstAtS)) s: \(first.detail)"
                       + " · replay: fleet replay --run DIR --user \(first.user)")
        }
        return out
    }

    static func ms(_ micros: Int64) -> String { String(format: "%.1f", Double(micros) / 1000) }
}
