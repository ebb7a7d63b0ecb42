import FleetMetrics
import FleetStats
import Foundation

/// The end of a run in one place, for `fleet run` and `fleet report` alike: record it in the
/// history (looking up the `latest` baseline first, so a run is never its own baseline), choose
/// the baseline and comparison, then write the report with the trend.
public enum ReportPublisher {
    /// How a publication uses the run history.
    public struct HistoryUse: Sendable {
        /// The history database; its directory is created when missing.
        public var path: String
        /// Append this run (false: only read the trend).
        public var record: Bool
        /// The run's results file, kept with its row so that a later `--baseline latest` finds it.
        public var resultsPath: String?
        /// Look up the profile's latest earlier run before recording this one.
        public var lookUpLatest: Bool
        /// Use the history only when it already exists or this run is recorded (`fleet report`).
        public var onlyIfPresent: Bool
        public var trendLength: Int

        public init(path: String, record: Bool = true, resultsPath: String? = nil, lookUpLatest: Bool = false,
                    onlyIfPresent: Bool = false, trendLength: Int = 20) {
            self.path = path
            self.record = record
            self.resultsPath = resultsPath
            self.lookUpLatest = lookUpLatest
            self.onlyIfPresent = onlyIfPresent
            self.trendLength = trendLength
        }
    }

    /// What the history gave: the trend, the latest earlier run when asked, or why it could not be used.
    public struct HistoryOutcome {
        public var trend: [HistoryRow] = []
        /// Whether the latest earlier run was looked up (before anything could go wrong after it).
        public var lookedUp = false
        public var latest: (runId: String, path: String)?
        /// The history could not be opened, read or written; the report is written all the same.
        public var problem: (any Error)?
    }

    /// The baseline a report is compared with and the comparison drawn, if any.
    public struct BaselineChoice {
        public var baseline: RunResults?
        public var comparison: RunComparison?
        public init(baseline: RunResults? = nil, comparison: RunComparison? = nil) {
            self.baseline = baseline
            self.comparison = comparison
        }
    }

    /// Uses the history (`history` nil: none), lets `choose` pick the baseline knowing what the
    /// history said, and writes the report into `directory`. Returns `index.html`'s path and the
    /// history's outcome. A history that cannot be used does not lose the report.
    public static func publish(_ results: RunResults, to directory: String, history: HistoryUse?,
                               choose: (HistoryOutcome) throws -> BaselineChoice) throws -> (index: String, history: HistoryOutcome) {
        let outcome = history.map { use(results, $0) } ?? HistoryOutcome()
        let choice = try choose(outcome)
        let index = try ReportWriter.write(results, to: directory, baseline: choice.baseline, history: outcome.trend,
                                           comparison: choice.comparison)
        return (index, outcome)
    }

    /// Appends `results` to the history at `historyPath` (nil: no history), then writes the report
    /// into `directory` with `baseline` and the last `trendLength` runs of the same profile.
    /// Returns the path of `index.html`; a history that cannot be opened is returned in `warnings`.
    public static func publish(_ results: RunResults, to directory: String, baseline: RunResults? = nil,
                               historyPath: String? = HistoryStore.defaultPath,
                               trendLength: Int = 20) throws -> (index: String, warnings: [String]) {
        let out = try publish(results, to: directory, history: historyPath.map { HistoryUse(path: $0, trendLength: trendLength) }) { _ in
            BaselineChoice(baseline: baseline)
        }
        return (out.index, out.history.problem.map { ["history not updated: \($0)"] } ?? [])
    }

    private static func use(_ results: RunResults, _ h: HistoryUse) -> HistoryOutcome {
        var out = HistoryOutcome()
        guard !h.onlyIfPresent || h.record || FileManager.default.fileExists(atPath: h.path) else { return out }
        do {
            let dir = (h.path as NSString).deletingLastPathComponent
            if h.record, !dir.isEmpty { try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true) }
            let store = try HistoryStore(path: h.path)
            if h.lookUpLatest {
                out.latest = try store.latestResults(profile: results.meta.profile)
                out.lookedUp = true
            }
            if h.record { try store.append(results, resultsPath: h.resultsPath) }
            out.trend = try store.list(profile: results.meta.profile, limit: h.trendLength)
        } catch {
            out.problem = error
        }
        return out
    }
}
