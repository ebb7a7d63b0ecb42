import FleetMetrics
import FleetSQLite
import Foundation

/// Every run, for trends and baselines: `reports/history.sqlite` (relative to where the bench runs).
///
/// Two tables: `runs` (one row per run: id, time, profile, bench revision, seed, target, verdict
/// and headline figures) and `run_metrics` (the run's `summary.csv` rows). Appending a run id
/// again replaces its rows, so re-rendering a report never duplicates history. Not thread-safe:
/// one store per thread (SQLite's busy timeout lets two processes append to one file).
public final class HistoryStore {
    /// Where runs land by default, relative to the working directory.
    public static let defaultPath = "reports/history.sqlite"

    public let path: String
    private let db: SQLiteDatabase

    /// Opens (creating it and its directory if needed) the history database at `path`.
    public init(path: String = HistoryStore.defaultPath) throws {
        self.path = path
        let dir = (path as NSString).deletingLastPathComponent
        if !dir.isEmpty && path != ":memory:" {
            do { try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true) } catch {
                throw ReportError(path: dir, problem: "cannot create the history directory: \(error.localizedDescription)")
            }
        }
        do {
            db = try SQLiteDatabase(path: path)
            try db.execute(Self.schema)
        } catch let e as SQLiteError {
            throw ReportError(path: path, problem: "history database: \(e.description)")
        }
    }

    static let schema = """
    CREATE TABLE IF NOT EXISTS runs (
        run_id TEXT PRIMARY KEY, started_at TEXT NOT NULL, profile TEXT NOT NULL, git_revision TEXT NOT NULL,
        seed TEXT NOT NULL, target TEXT NOT NULL, verdict TEXT NOT NULL, duration_s REAL NOT NULL,
        requests INTEGER NOT NULL, error_rate REAL NOT NULL, journeys_completed INTEGER NOT NULL,
        turnaround_p50_ms REAL, turnaround_p99_ms REAL, settlement_p50_ms REAL, settlement_p99_ms REAL,
        generator_behind INTEGER NOT NULL);
    CREATE INDEX IF NOT EXISTS runs_by_profile ON runs(profile, started_at);
    CREATE TABLE IF NOT EXISTS run_metrics (
        run_id TEXT NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE, metric TEXT NOT NULL,
        count INTEGER NOT NULL, p50_ms REAL, p90_ms REAL, p99_ms REAL, p99_9_ms REAL, max_ms REAL, mean_ms REAL,
        errors INTEGER NOT NULL, PRIMARY KEY (run_id, metric));
    CREATE TABLE IF NOT EXISTS run_files (
        run_id TEXT PRIMARY KEY REFERENCES runs(run_id) ON DELETE CASCADE, results_path TEXT NOT NULL);
    """

    /// Records a run (replacing an earlier record of the same run id) with its summary metrics and,
    /// when given, where its `results.json` is (what `--baseline latest` compares with).
    public func append(_ results: RunResults, resultsPath: String? = nil) throws {
        let row = HistoryRow(results: results)
        do {
            try db.transaction {
                try db.run("DELETE FROM runs WHERE run_id = ?", .text(row.runId))
                // The seed is a UInt64; text keeps values above Int64.max exact.
                try db.run("""
                    INSERT INTO runs (run_id, started_at, profile, git_revision, seed, target, verdict, duration_s, requests,
                        error_rate, journeys_completed, turnaround_p50_ms, turnaround_p99_ms, settlement_p50_ms,
                        settlement_p99_ms, generator_behind) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """, .text(row.runId), .text(row.startedAt), .text(row.profile), .text(row.gitRevision),
                    .text(String(row.seed)), .text(row.target), .text(row.verdict), .double(row.durationSeconds),
                    .int(row.requests), .double(row.errorRate), .int(row.journeysCompleted), Self.real(row.turnaroundP50Ms),
                    Self.real(row.turnaroundP99Ms), Self.real(row.settlementP50Ms), Self.real(row.settlementP99Ms),
                    .int(row.generatorBehind ? 1 : 0))
                let all = results.metrics.map { ($0.name, $0.corrected, $0.errors) }
                    + results.endpoints.map { ($0.latency.name, $0.latency.corrected, $0.latency.errors) }
                for (name, h, errors) in all where !h.isEmpty {
                    let p = h.values(atPercentiles: [50, 90, 99, 99.9]).map { Double($0) / 1000 }
                    try db.run("""
                        INSERT INTO run_metrics (run_id, metric, count, p50_ms, p90_ms, p99_ms, p99_9_ms, max_ms, mean_ms, errors)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                        """, .text(row.runId), .text(name), .int(h.count), .double(p[0]), .double(p[1]), .double(p[2]),
                        .double(p[3]), .double(Double(h.max) / 1000), .double(h.mean / 1000), .int(errors))
                }
                try db.run("DELETE FROM run_files WHERE run_id = ?", .text(row.runId))
                if let resultsPath {
                    try db.run("INSERT INTO run_files (run_id, results_path) VALUES (?, ?)", .text(row.runId), .text(resultsPath))
                }
            }
        } catch let e as SQLiteError {
            throw ReportError(path: path, problem: "cannot record run \(row.runId): \(e.description)")
        }
    }

    /// The last `limit` runs (of `profile`, or of every profile), oldest first.
    public func list(profile: String? = nil, limit: Int = 20) throws -> [HistoryRow] {
        let columns = """
            run_id, started_at, profile, git_revision, seed, target, verdict, duration_s, requests, error_rate,
            journeys_completed, turnaround_p50_ms, turnaround_p99_ms, settlement_p50_ms, settlement_p99_ms, generator_behind
            """
        let rows: [SQLiteRow]
        do {
            if let profile {
                rows = try db.query("SELECT \(columns) FROM runs WHERE profile = ? ORDER BY started_at DESC, rowid DESC LIMIT ?",
                                    .text(profile), .int(Int64(Swift.max(0, limit))))
            } else {
                rows = try db.query("SELECT \(columns) FROM runs ORDER BY started_at DESC, rowid DESC LIMIT ?",
                                    .int(Int64(Swift.max(0, limit))))
            }
        } catch let e as SQLiteError {
            throw ReportError(path: path, problem: "cannot read history: \(e.description)")
        }
        return rows.reversed().map { r in
            HistoryRow(runId: r.text(0), startedAt: r.text(1), profile: r.text(2), gitRevision: r.text(3),
                       seed: UInt64(r.text(4)) ?? 0, target: r.text(5), verdict: r.text(6), durationSeconds: r.double(7),
                       requests: r.int(8), errorRate: r.double(9), journeysCompleted: r.int(10),
                       turnaroundP50Ms: r[11].doubleValue, turnaroundP99Ms: r[12].doubleValue,
                       settlementP50Ms: r[13].doubleValue, settlementP99Ms: r[14].doubleValue, generatorBehind: r.int(15) != 0)
        }
    }

    /// One metric of one run as recorded (`p99_ms` etc.), for trend queries by scripts and tests.
    public func metric(_ name: String, run runId: String) throws -> (count: Int64, p50Ms: Double, p99Ms: Double, errors: Int64)? {
        do {
            guard let r = try db.queryOne("SELECT count, p50_ms, p99_ms, errors FROM run_metrics WHERE run_id = ? AND metric = ?",
                                          .text(runId), .text(name)) else { return nil }
            return (r.int(0), r.double(1), r.double(2), r.int(3))
        } catch let e as SQLiteError {
            throw ReportError(path: path, problem: "cannot read history: \(e.description)")
        }
    }

    /// The results file of the newest run of `profile` that recorded one and whose file still
    /// exists: the `latest` baseline. nil when there is none.
    public func latestResults(profile: String) throws -> (runId: String, path: String)? {
        let rows: [SQLiteRow]
        do {
            rows = try db.query("SELECT r.run_id, f.results_path FROM runs r JOIN run_files f ON f.run_id = r.run_id "
                                + "WHERE r.profile = ? ORDER BY r.started_at DESC, r.rowid DESC LIMIT 50", .text(profile))
        } catch let e as SQLiteError {
            throw ReportError(path: path, problem: "cannot read history: \(e.description)")
        }
        return rows.lazy.map { ($0.text(0), $0.text(1)) }.first { FileManager.default.fileExists(atPath: $0.1) }
    }

    private static func real(_ v: Double?) -> SQLiteValue { v.map { .double($0) } ?? .null }
}
