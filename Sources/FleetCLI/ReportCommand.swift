import FleetCore
import FleetMetrics
import FleetReport
import FleetRunner
import Foundation

/// `fleet report RESULTS.json… [--baseline RESULTS.json] [--out DIR] [--history PATH] [--record] [--check]`:
/// re-renders a run's report (HTML, CSVs, results.json) from its results file. Given several files
/// (the shards of one run) it merges them exactly first and judges the thresholds again on the whole.
/// `fleet report --recover DIR [--out DIR2]`: a run folder whose run died without writing its report
/// (`kill -9`) gets one from the last complete snapshot of its `stream.jsonl`.
enum ReportCommand: FleetCommand {
    static let name = "report"
    static let summary = "re-render a report from results.json, merging shards (--baseline, --out, --history, --record, --check)"

    static func run(_ arguments: [String], io: CommandIO) throws -> Int32 {
        var args = ArgumentReader(arguments)
        let baselinePath = try args.option("baseline")
        let out = try args.option("out")
        let historyOption = try args.option("history")
        let record = args.flag("record")
        let check = args.flag("check")
        let recover = try args.option("recover")
        let files = try args.finish()
        if let dir = recover {
            guard files.isEmpty else { throw UsageError("--recover DIR takes no results files") }
            let results: RunResults
            do { results = try ResultStream.recover(directory: dir) } catch { throw UsageError("--recover: \(error)") }
            let index = try ReportWriter.write(results, to: out ?? dir)
            io.out("recovered \(results.requestTotals.requests) requests up to \(Int(results.meta.actualDurationSeconds)) s")
            io.out("report: \(index)")
            return ExitCode.success
        }
        guard !files.isEmpty else {
            throw UsageError("expected a results file: fleet report RESULTS.json… [--baseline RESULTS.json] [--out DIR]")
        }
        var results = try load(files[0])
        if files.count > 1 {
            guard out != nil else { throw UsageError("merging \(files.count) shards needs --out DIR for the merged report") }
            let all = [results] + (try files.dropFirst().map(load))
            if all.allSatisfy({ $0.meta.shard != nil }) {
                // Shards of `fleet run --shard`: the same checks and alignment as `fleet merge`.
                do { results = try ShardMerge.merge(zip(files, all).map { ShardMerge.Input(source: $0, results: $1) }) }
                catch { throw UsageError(error.description) }
            } else {
                for r in all.dropFirst() { results.merge(r) }
                results.reevaluateThresholds()
            }
            io.out("merged \(files.count) shards: \(results.requestTotals.requests) requests")
        }
        let baseline = try baselinePath.map(load)
        // Re-rendering in place (next to results.json) is the default: the report stays with its data.
        let directory = out ?? (files[0] as NSString).deletingLastPathComponent.nilIfEmpty ?? "."
        // The history is read when it exists (for the trend) and written only with --record.
        let history = ReportPublisher.HistoryUse(path: historyOption ?? HistoryStore.defaultPath, record: record, onlyIfPresent: true)
        let index = try ReportPublisher.publish(results, to: directory, history: history) { outcome in
            if let problem = outcome.problem { io.err("fleet report: warning: history not used: \(problem)") }
            return ReportPublisher.BaselineChoice(baseline: baseline)
        }.index
        for v in results.meta.thresholds where !v.passed { io.out("threshold failed: \(v.message)") }
        io.out("report: \(index)")
        return check && !results.meta.passed ? ExitCode.thresholdsFailed : ExitCode.success
    }

    /// A results file that cannot be read is bad input (exit 2), named with its problem.
    private static func load(_ path: String) throws -> RunResults {
        do { return try RunResults.load(path: path) } catch let e as MetricsError { throw UsageError(e.description) }
    }
}

private extension String {
    var nilIfEmpty: String? { isEmpty ? nil : self }
}
