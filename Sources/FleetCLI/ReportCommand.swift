import FleetMetrics
import FleetReport
import Foundation

/// `fleet report RESULTS.json [--baseline RESULTS.json] [--out DIR] [--history PATH] [--record]`:
/// re-renders a run's report (HTML and CSVs) from its results file.
enum ReportCommand: FleetCommand {
    static let name = "report"
    static let summary = "re-render a report from results.json (--baseline, --out, --history, --record)"

    static func run(_ arguments: [String], io: CommandIO) throws -> Int32 {
        var args = ArgumentReader(arguments)
        let baselinePath = try args.option("baseline")
        let out = try args.option("out")
        let historyOption = try args.option("history")
        let record = args.flag("record")
        let positional = try args.finish()
        guard positional.count == 1 else {
            throw UsageError(positional.isEmpty ? "expected a results file: fleet report RESULTS.json [--baseline RESULTS.json] [--out DIR]"
                             : "expected one results file, got \(positional.count): \(positional.joined(separator: " "))")
        }
        let results = try load(positional[0])
        let baseline = try baselinePath.map(load)
        // Re-rendering in place (next to results.json) is the default: the report stays with its data.
        let directory = out ?? (positional[0] as NSString).deletingLastPathComponent.nilIfEmpty ?? "."
        let historyPath = historyOption ?? HistoryStore.defaultPath
        var trend: [HistoryRow] = []
        if record || FileManager.default.fileExists(atPath: historyPath) {
            do {
                let store = try HistoryStore(path: historyPath)
                if record { try store.append(results) }
                trend = try store.list(profile: results.meta.profile)
            } catch {
                io.err("fleet report: warning: history not used: \(error)")
            }
        }
        let index = try ReportWriter.write(results, to: directory, baseline: baseline, history: trend)
        io.out("report: \(index)")
        return ExitCode.success
    }

    /// A results file that cannot be read is bad input (exit 2), named with its problem.
    private static func load(_ path: String) throws -> RunResults {
        do { return try RunResults.load(path: path) } catch let e as ResultsFileError { throw UsageError(e.description) }
    }
}

private extension String {
    var nilIfEmpty: String? { isEmpty ? nil : self }
}
