import FleetMetrics
import FleetStats
import Foundation

/// Writes a run's report directory: `index.html`, the five CSV files and `results.json`.
public enum ReportWriter {
    /// The files a report directory holds, in the order they are written.
    public static let files = ["results.json", "summary.csv", "endpoints.csv", "timeline.csv", "journeys.csv", "errors.csv", "violations.csv", "index.html"]

    /// Writes every file into `directory` (created if needed) and returns the path of `index.html`.
    /// `baseline` adds the comparison; `history` (earlier runs, oldest first) adds the trend.
    @discardableResult
    public static func write(_ results: RunResults, to directory: String, baseline: RunResults? = nil,
                             history: [HistoryRow] = [], comparison: RunComparison? = nil) throws -> String {
        let fm = FileManager.default
        do {
            try fm.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw ReportError(path: directory, problem: "cannot create the report directory: \(error.localizedDescription)")
        }
        let contents: [(String, Data)] = [
            ("results.json", try results.encodedJSON()),
            ("summary.csv", Data(CSVTables.summary(results).utf8)),
            ("endpoints.csv", Data(CSVTables.endpoints(results).utf8)),
            ("timeline.csv", Data(CSVTables.timeline(results).utf8)),
            ("journeys.csv", Data(CSVTables.journeys(results).utf8)),
            ("errors.csv", Data(CSVTables.errors(results).utf8)),
            ("violations.csv", Data(CSVTables.violations(results).utf8)),
            ("index.html", Data(renderHTML(results, baseline: baseline, history: history, comparison: comparison).utf8)),
        ]
        for (name, data) in contents {
            let path = (directory as NSString).appendingPathComponent(name)
            do {
                // Atomic: a reader (or a crash) never sees half a file.
                try data.write(to: URL(fileURLWithPath: path), options: .atomic)
            } catch {
                throw ReportError(path: path, problem: "cannot write: \(error.localizedDescription)")
            }
        }
        return (directory as NSString).appendingPathComponent("index.html")
    }

    /// The HTML page alone (for tests and for callers that serve it themselves).
    /// Without a `comparison`, one is made from `baseline` (forced: a report shows what differs
    /// instead of refusing, and says the runs are not like for like).
    public static func renderHTML(_ results: RunResults, baseline: RunResults? = nil, history: [HistoryRow] = [],
                                  comparison: RunComparison? = nil) -> String {
        let c = comparison ?? baseline.flatMap { b in
            try? Comparer(minEffect: results.meta.minEffect ?? 0.05, minAbsoluteMs: results.meta.minAbsoluteMs ?? 10).compare(base: b, new: results, force: true)
        }
        return HTMLReport(results: results, baseline: baseline, history: history, comparison: c).render()
    }
}

/// A report file that could not be written, and where.
public struct ReportError: Error, CustomStringConvertible, Equatable {
    public var path: String
    public var problem: String
    public var description: String { "\(path): \(problem)" }
}
