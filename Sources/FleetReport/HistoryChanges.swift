import FleetStats

/// A change point in a profile's history: the run where a metric's level moved.
public struct HistoryChange: Sendable, Equatable {
    /// The first run of the new level.
    public var runId: String
    /// Its position in the rows searched (0 = oldest).
    public var position: Int
    /// `turnaround_p50_ms`, `error_rate`, `requests_per_s`, …
    public var metric: String
    public var before: Double
    public var after: Double
    public var relativeChange: Double
    public var pValue: Double
}

/// Change points per headline metric over a history (rows of one profile, oldest first).
public enum HistoryChanges {
    /// The metrics searched, as named in `fleet history --changes`, with how to read each from a row.
    public static let metrics: [(name: String, value: @Sendable (HistoryRow) -> Double?)] = [
        ("turnaround_p50_ms", { $0.turnaroundP50Ms }), ("turnaround_p99_ms", { $0.turnaroundP99Ms }),
        ("settlement_p50_ms", { $0.settlementP50Ms }), ("settlement_p99_ms", { $0.settlementP99Ms }),
        ("error_rate", { $0.errorRate }),
        ("requests_per_s", { $0.durationSeconds > 0 ? Double($0.requests) / $0.durationSeconds : nil }),
    ]

    public static func find(_ rows: [HistoryRow], detector: EDivisive = EDivisive()) -> [HistoryChange] {
        var out: [HistoryChange] = []
        for (name, value) in metrics {
            // Runs without the metric (no settlement recorded) are left out of its series only.
            let points = rows.enumerated().compactMap { i, r in value(r).map { (i, $0) } }
            for cp in detector.changePoints(points.map(\.1)) {
                let pos = points[cp.index].0
                out.append(HistoryChange(runId: rows[pos].runId, position: pos, metric: name, before: cp.meanBefore,
                                         after: cp.meanAfter, relativeChange: cp.relativeChange, pValue: cp.pValue))
            }
        }
        return out.sorted { ($0.position, $0.metric) < ($1.position, $1.metric) }
    }

    /// The plain-text list `fleet history --changes` prints.
    public static func render(_ changes: [HistoryChange], rows: [HistoryRow]) -> String {
        guard !changes.isEmpty else { return "no change points in \(rows.count) runs" }
        let fmt: (String, Double) -> String = { m, v in m == "error_rate" ? String(format: "%.4f", v) : String(format: "%.1f", v) }
        return changes.map { c in
            "run \(c.position + 1) \(c.runId) (\(rows[c.position].startedAt)): \(c.metric) \(fmt(c.metric, c.before)) → "
                + "\(fmt(c.metric, c.after)) (\(String(format: "%+.1f", c.relativeChange * 100)) %), p = \(String(format: "%.4f", c.pValue))"
        }.joined(separator: "\n")
    }
}
