import FleetStats
import Foundation

/// The plain-text forms of a comparison: the table `fleet compare` prints and the lines a run ends with.
public enum CompareText {
    /// Every compared figure, one per line, aligned; then the rates, the throughput and the verdict.
    public static func table(_ c: RunComparison) -> String {
        var rows = [["metric", "pct", "base", "new", "ratio", "interval", "verdict"]]
        for m in c.metrics {
            for p in m.percentiles {
                rows.append([m.name + (m.headline ? " *" : ""), "p" + pct(p.percentile), ms(p.baseMicros), ms(p.newMicros),
                             String(format: "%.3f", p.ratio),
                             p.low.map { String(format: "[%.3f, %.3f]", $0, p.high ?? $0) } ?? "(too few windows)", p.verdict.rawValue])
            }
        }
        for r in c.rates {
            let t = r.test
            rows.append([r.name, "rate", String(format: "%.4f", t.baseRate), String(format: "%.4f", t.newRate),
                         String(format: "%+.4f", t.newRate - t.baseRate), String(format: "[%+.4f, %+.4f] p=%.2g", t.low, t.high, t.pValue),
                         r.verdict.rawValue])
        }
        let widths = (0..<rows[0].count).map { col in rows.map { $0[col].count }.max() ?? 0 }
        var lines = rows.map { row in
            row.enumerated().map { i, cell in
                let pad = String(repeating: " ", count: widths[i] - cell.count)
                return i == 0 || i == 6 ? cell + pad : pad + cell
            }.joined(separator: "  ").trimmingCharacters(in: .whitespaces)
        }
        lines.append("throughput: \(String(format: "%.1f", c.baseRequestsPerSecond)) → \(String(format: "%.1f", c.newRequestsPerSecond)) requests/s (not judged)")
        lines.append("* headline metric; intervals: \(Int(c.confidence * 100)) % block bootstrap of new/base; minimum effect \(pct(c.minEffect * 100)) % and \(pct(c.minAbsoluteMs)) ms")
        lines.append(contentsOf: summary(c))
        return lines.joined(separator: "\n")
    }

    /// The lines a run or `fleet compare` ends with: warnings, then the regression verdict.
    public static func summary(_ c: RunComparison) -> [String] {
        var out = c.warnings.map { "warning: not like for like: \($0)" }
        let r = c.regressions
        if r.isEmpty {
            out.append("baseline \(c.baseRunId): no regression")
        } else {
            out.append("REGRESSION against baseline \(c.baseRunId):")
            out.append(contentsOf: r.map { "  worse: \($0)" })
        }
        return out
    }

    static func ms(_ micros: Int64) -> String { String(format: "%.1f ms", Double(micros) / 1000) }
    static func pct(_ p: Double) -> String { p == p.rounded() ? String(Int(p)) : String(format: "%g", p) }
}
