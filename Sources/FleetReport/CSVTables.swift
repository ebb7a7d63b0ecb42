import FleetMetrics

/// The CSV files of a report, one function each; every latency is the corrected one, in ms.
///
/// Headers are a contract with scripts (the nightly job reads `summary.csv`), so they are
/// spelled out here once and tested. Rows are in a fixed order so two runs diff cleanly.
public enum CSVTables {
    public static let summaryHeader = "metric,count,p50_ms,p90_ms,p99_ms,p99_9_ms,max_ms,mean_ms,errors"
    public static let endpointsHeader = "endpoint,count,rate_per_s,p50_ms,p90_ms,p99_ms,p99_9_ms,max_ms,mean_ms,errors,error_rate,statuses,"
        + "dns_p50_ms,connect_p50_ms,tls_p50_ms,first_byte_p50_ms,first_byte_p99_ms,uncorrected_p99_ms"
    public static let timelineHeader = "window_start_s,metric,count,p50_ms,p90_ms,p99_ms,max_ms,errors"
    public static let journeysHeader = "journey,cohort,started,completed,abandoned,failed,in_progress,p50_ms,p99_ms"
    public static let errorsHeader = "endpoint,status,code,count,first_at_s,sample_message"

    /// The metrics every summary starts with, present (count 0) even when nothing was recorded.
    public static let headlineMetrics = MetricName.headline

    /// `summary.csv`: the headline metrics, every other journey metric by name, then `http:` rows.
    public static func summary(_ r: RunResults) -> String {
        var lines = [summaryHeader]
        for name in headlineMetrics {
            lines.append(summaryRow(name.rawValue, r.metric(name)?.corrected ?? Histogram(), errors: r.metric(name)?.errors ?? 0))
        }
        for m in r.metrics where !headlineMetrics.contains(MetricName(m.name)) {
            lines.append(summaryRow(m.name, m.corrected, errors: m.errors))
        }
        for e in r.endpoints { lines.append(summaryRow(e.latency.name, e.latency.corrected, errors: e.latency.errors)) }
        return lines.joined(separator: "\n") + "\n"
    }

    private static func summaryRow(_ name: String, _ h: Histogram, errors: Int64) -> String {
        let p = h.values(atPercentiles: [50, 90, 99, 99.9])
        let figures = h.isEmpty ? Array(repeating: "", count: 6)
            : [Format.ms3(p[0]), Format.ms3(p[1]), Format.ms3(p[2]), Format.ms3(p[3]), Format.ms3(h.max), Format.ms3(h.mean)]
        return ([Format.csv(name), String(h.count)] + figures + [String(errors)]).joined(separator: ",")
    }

    /// `endpoints.csv`: one row per endpoint with status counts and libcurl's breakdown.
    public static func endpoints(_ r: RunResults) -> String {
        let seconds = ReportFacts.durationSeconds(r)
        var lines = [endpointsHeader]
        for e in r.endpoints {
            let h = e.latency.corrected
            let p = h.values(atPercentiles: [50, 90, 99, 99.9])
            let statuses = e.statuses.sorted { $0.key < $1.key }.map { "\($0.key):\($0.value)" }.joined(separator: ";")
            var f: [String] = [Format.csv(e.name), String(h.count), String(format: "%.3f", seconds > 0 ? Double(h.count) / seconds : 0)]
            f += h.isEmpty ? Array(repeating: "", count: 6)
                : [Format.ms3(p[0]), Format.ms3(p[1]), Format.ms3(p[2]), Format.ms3(p[3]), Format.ms3(h.max), Format.ms3(h.mean)]
            f += [String(e.latency.errors), String(format: "%.6f", h.count > 0 ? Double(e.latency.errors) / Double(h.count) : 0), statuses]
            f += [e.dns, e.connect, e.tls, e.firstByte].map { $0.isEmpty ? "" : Format.ms3($0.value(atPercentile: 50)) }
            f.append(e.firstByte.isEmpty ? "" : Format.ms3(e.firstByte.value(atPercentile: 99)))
            f.append(e.latency.uncorrected.isEmpty ? "" : Format.ms3(e.latency.uncorrected.value(atPercentile: 99)))
            lines.append(f.joined(separator: ","))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// `timeline.csv`: one row per window per metric (journey metrics, then `http:` endpoints).
    public static func timeline(_ r: RunResults) -> String {
        var lines = [timelineHeader]
        let all = r.metrics + r.endpoints.map(\.latency)
        var rows: [(Int, String)] = []
        for m in all {
            for w in m.windows {
                let h = w.corrected
                let p = h.values(atPercentiles: [50, 90, 99])
                let start = Double(w.index) * Double(r.windowNanos) / 1e9
                let line = [String(format: "%.3f", start), Format.csv(m.name), String(h.count),
                            Format.ms3(p[0]), Format.ms3(p[1]), Format.ms3(p[2]), Format.ms3(h.max), String(w.errors)]
                    .joined(separator: ",")
                rows.append((w.index, line))
            }
        }
        // Time first, then the metric order above, so a script can stream it window by window.
        let ordered = rows.enumerated().sorted { ($0.element.0, $0.offset) < ($1.element.0, $1.offset) }
        lines += ordered.map { $0.element.1 }
        return lines.joined(separator: "\n") + "\n"
    }

    /// `journeys.csv`: one row per journey and cohort; percentiles of completed journeys' durations.
    public static func journeys(_ r: RunResults) -> String {
        var lines = [journeysHeader]
        for j in r.journeys {
            let p = j.duration.values(atPercentiles: [50, 99])
            lines.append([Format.csv(j.journey), Format.csv(j.cohort), String(j.started), String(j.completed),
                          String(j.abandoned), String(j.failed), String(j.inProgress),
                          j.duration.isEmpty ? "" : Format.ms3(p[0]), j.duration.isEmpty ? "" : Format.ms3(p[1])]
                .joined(separator: ","))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// `errors.csv`: the error table, most frequent first.
    public static func errors(_ r: RunResults) -> String {
        var lines = [errorsHeader]
        for e in ReportFacts.errorsByCount(r) {
            lines.append([Format.csv(e.endpoint), e.status.map(String.init) ?? "", Format.csv(e.code ?? ""), String(e.count),
                          String(format: "%.3f", Double(e.firstOffsetNanos) / 1e9), Format.csv(e.sampleMessage ?? "")]
                .joined(separator: ","))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    public static let violationsHeader = "invariant,user,scenario,journey,seed,first_at_s,detail"

    /// One row per violation (the header alone when there were none).
    public static func violations(_ r: RunResults) -> String {
        var lines = [violationsHeader]
        for v in r.violations {
            lines.append([v.invariant.rawValue, String(v.user), Format.csv(v.scenario), Format.csv(v.journey), String(v.seed),
                          String(format: "%.3f", v.firstAtS), Format.csv(Format.cut(v.detail, 1000))].joined(separator: ","))
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
