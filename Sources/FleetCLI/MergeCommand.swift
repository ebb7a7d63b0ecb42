import FleetCore
import FleetMetrics
import FleetReport
import Foundation

/// `fleet merge DIR… --out DIR [--allow-missing] [--history PATH] [--baseline RESULTS.json]`: the
/// shards of one `fleet run --shard i/N` run (their run folders, or their results.json files)
/// become one report, judged again as a whole. Exit 99 when a threshold fails on the merged data.
enum MergeCommand: FleetCommand {
    static let name = "merge"
    static let summary = "merge the shard run folders of one sharded run into one report (--out DIR)"

    static func run(_ arguments: [String], io: CommandIO) throws -> Int32 {
        var args = ArgumentReader(arguments)
        guard let out = try args.option("out") else { throw UsageError("--out DIR is required: fleet merge DIR… --out DIR") }
        let historyPath = try args.option("history")
        let baselinePath = try args.option("baseline")
        let allowMissing = args.flag("allow-missing")
        let paths = try args.finish()
        guard !paths.isEmpty else { throw UsageError("expected the shards' run folders: fleet merge DIR… --out DIR") }
        let inputs = try paths.map { p in ShardMerge.Input(source: p, results: try ResultsInput.load(p)) }
        let merged: RunResults
        do { merged = try ShardMerge.merge(inputs, allowMissing: allowMissing) } catch { throw UsageError(error.description) }
        let baseline = try baselinePath.map(ResultsInput.load)
        let index = try ReportPublisher.publish(merged, to: out, history: historyPath.map { ReportPublisher.HistoryUse(path: $0) }) { outcome in
            if let problem = outcome.problem { io.err("fleet merge: warning: history not recorded: \(problem)") }
            return ReportPublisher.BaselineChoice(baseline: baseline)
        }.index
        for line in lines(merged) { io.out(line) }
        io.out("report: \(index)")
        return ExitCode.of(interrupted: false, violated: !merged.violations.isEmpty, thresholdsFailed: !merged.meta.passed)
    }

    /// What the merge found, as the last lines of a run print it, and one line per shard.
    static func lines(_ r: RunResults) -> [String] {
        let t = r.requestTotals
        let real = r.measuredJourneys
        var out = ["merged \(r.meta.shards) shards of \(r.meta.runId): requests \(t.requests), errors \(t.errors); journeys completed "
                   + "\(real.reduce(Int64(0)) { $0 + $1.completed })/\(real.reduce(Int64(0)) { $0 + $1.started })"]
        let runs = r.meta.shardRuns ?? []
        for (s, machine) in zip(runs, ShardSummary.machines(of: runs)) {
            let lag = String(format: "%.1f", Double(s.lagP99Micros) / 1000)
            out.append("shard \(s.label)\(s.sourceAddress.map { " from \($0)" } ?? "")\(machine.map { " on \($0)" } ?? ""): "
                       + "\(s.usersStarted) users, \(s.requests) requests, "
                       + "lag p99 \(lag) ms, " + (s.behind.isEmpty ? "kept up" : "FELL BEHIND: " + s.behind.joined(separator: "; ")))
        }
        for n in r.meta.notes where !n.hasPrefix("generator fell behind: shard") { out.append("NOTE: \(n)") }
        for v in r.meta.thresholds where !v.passed { out.append("threshold failed: \(v.message)") }
        return out
    }
}

/// A results file named on the command line: a run folder (its results.json) or the file itself.
/// One that cannot be read is bad input (exit 2), named with its problem.
enum ResultsInput {
    static func load(_ path: String) throws -> RunResults {
        var isDir: ObjCBool = false
        let file = FileManager.default.fileExists(atPath: path, isDirectory: &isDir) && isDir.boolValue
            ? (path as NSString).appendingPathComponent("results.json") : path
        do { return try RunResults.load(path: file) } catch let e as MetricsError { throw UsageError(e.description) }
    }
}
