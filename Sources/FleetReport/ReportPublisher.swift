import FleetMetrics
import Foundation

/// The end of a run in one call: record it in the history, then write its report with the trend.
public enum ReportPublisher {
    /// Appends `results` to the history at `historyPath` (nil: no history), then writes the report
    /// into `directory` with `baseline` and the last `trendLength` runs of the same profile.
    /// Returns the path of `index.html`. A history that cannot be opened does not lose the report:
    /// the report is written without the trend and the problem is returned in `warnings`.
    public static func publish(_ results: RunResults, to directory: String, baseline: RunResults? = nil,
                               historyPath: String? = HistoryStore.defaultPath,
                               trendLength: Int = 20) throws -> (index: String, warnings: [String]) {
        var warnings: [String] = []
        var trend: [HistoryRow] = []
        if let historyPath {
            do {
                let store = try HistoryStore(path: historyPath)
                try store.append(results)
                trend = try store.list(profile: results.meta.profile, limit: trendLength)
            } catch {
                warnings.append("history not updated: \(error)")
            }
        }
        let index = try ReportWriter.write(results, to: directory, baseline: baseline, history: trend)
        return (index, warnings)
    }
}
