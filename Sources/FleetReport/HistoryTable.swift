import Foundation

/// The plain-text table `fleet history` prints: aligned columns, one run per line, oldest first.
public enum HistoryTable {
    public static func render(_ rows: [HistoryRow]) -> String {
        let header = ["started", "run", "profile", "revision", "verdict", "turn p50", "turn p99", "settle p50", "settle p99",
                      "requests", "errors"]
        let ms: (Double?) -> String = { $0.map { String(format: "%.1f ms", $0) } ?? "-" }
        let body = rows.map { r in
            [r.startedAt, r.runId, r.profile, r.gitRevision, r.verdict + (r.generatorBehind ? " (generator behind)" : ""),
             ms(r.turnaroundP50Ms), ms(r.turnaroundP99Ms), ms(r.settlementP50Ms), ms(r.settlementP99Ms),
             String(r.requests), String(format: "%.2f %%", r.errorRate * 100)]
        }
        let all = [header] + body
        let widths = (0..<header.count).map { c in all.map { $0[c].count }.max() ?? 0 }
        // Text columns left-aligned, figures right-aligned.
        return all.map { row in
            row.enumerated().map { c, cell in
                let pad = String(repeating: " ", count: widths[c] - cell.count)
                return c < 5 ? cell + pad : pad + cell
            }.joined(separator: "  ").trimmingCharacters(in: .whitespaces)
        }.joined(separator: "\n")
    }
}
