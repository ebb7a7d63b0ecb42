import FleetMetrics
import Foundation

/// Number and text formatting shared by the CSV files and the HTML page.
///
/// Latencies are stored in microseconds; reports speak milliseconds. CSVs use fixed 3 decimals
/// (`12.345`) so scripts parse one shape; the page uses a human form (`850 ms`, `1.23 s`).
enum Format {
    /// Microseconds as milliseconds with 3 decimals, for CSVs ("12.345").
    static func ms3(_ micros: Int64) -> String { String(format: "%.3f", Double(micros) / 1000) }
    static func ms3(_ micros: Double) -> String { String(format: "%.3f", micros / 1000) }

    /// A latency for people: "0.42 ms", "12.3 ms", "850 ms", "1.23 s", "2 min 5 s".
    static func duration(micros: Int64) -> String { duration(ms: Double(micros) / 1000) }

    static func duration(ms: Double) -> String {
        guard ms.isFinite else { return "–" }
        let a = abs(ms)
        if a < 1 { return String(format: "%.2f ms", ms) }
        if a < 100 { return String(format: "%.1f ms", ms) }
        if a < 1000 { return String(format: "%.0f ms", ms) }
        if a < 60_000 { return String(format: "%.2f s", ms / 1000) }
        let s = Int((ms / 1000).rounded())
        return "\(s / 60) min \(s % 60) s"
    }

    /// Seconds of a run for people: "45.0 s", "12 min 3 s", "1 h 2 min".
    static func runLength(seconds: Double) -> String {
        let s = Int(seconds.rounded())
        if s < 60 { return String(format: "%.1f s", seconds) }
        if s < 3600 { return "\(s / 60) min \(s % 60) s" }
        return "\(s / 3600) h \((s % 3600) / 60) min"
    }

    /// A count with thin-space thousands separators ("12 345").
    static func count(_ n: Int64) -> String {
        let s = String(n.magnitude)
        var out = ""
        for (i, ch) in s.enumerated() {
            if i > 0 && (s.count - i) % 3 == 0 { out.append("\u{2009}") }
            out.append(ch)
        }
        return (n < 0 ? "-" : "") + out
    }

    /// A fraction as a percentage with enough digits to tell 0.01 % from 0 ("0.012 %").
    static func percent(_ fraction: Double) -> String {
        guard fraction.isFinite else { return "–" }
        let p = fraction * 100
        if p == 0 { return "0 %" }
        if abs(p) < 0.1 { return String(format: "%.3f %%", p) }
        if abs(p) < 10 { return String(format: "%.2f %%", p) }
        return String(format: "%.1f %%", p)
    }

    static func rate(_ perSecond: Double) -> String {
        guard perSecond.isFinite else { return "–" }
        return perSecond < 10 ? String(format: "%.2f/s", perSecond) : String(format: "%.1f/s", perSecond)
    }

    /// A relative change with its direction in words as well as a sign ("+12.3 % (worse)").
    static func change(_ now: Double, _ before: Double, higherIsWorse: Bool = true) -> (text: String, worse: Bool?) {
        guard before != 0, now.isFinite, before.isFinite else { return ("n/a", nil) }
        let r = (now - before) / before
        if abs(r) < 0.005 { return ("±0 % (same)", nil) }
        let worse = (r > 0) == higherIsWorse
        return ((r > 0 ? "+" : "−") + String(format: "%.1f %% ", abs(r) * 100) + (worse ? "(worse)" : "(better)"), worse)
    }

    /// An RFC 3339 time to the second, for narrow columns ("2026-11-29 15:33:37Z").
    static func shortTime(_ rfc3339: String) -> String {
        guard rfc3339.count >= 19, rfc3339.dropFirst(10).first == "T" else { return rfc3339 }
        let zone = rfc3339.hasSuffix("Z") ? "Z" : ""
        return String(rfc3339.prefix(19)).replacingOccurrences(of: "T", with: " ") + zone
    }

    /// Escapes text for HTML element content and attribute values.
    static func html(_ s: String) -> String {
        var out = ""
        out.reserveCapacity(s.utf8.count)
        for ch in s {
            switch ch {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(ch)
            }
        }
        return out
    }

    /// At most `limit` characters, with an ellipsis when cut (server strings reach reports).
    static func cut(_ s: String, _ limit: Int) -> String {
        s.count > limit ? String(s.prefix(limit)) + "…" : s
    }

    /// One CSV field: quoted when it holds a comma, quote or line break (RFC 4180).
    static func csv(_ s: String) -> String {
        guard s.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return s }
        return "\"" + s.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// A short number for chart ticks ("0", "2.5", "12k", "1.5M").
    static func tick(_ v: Double) -> String {
        let a = abs(v)
        if a >= 1_000_000 { return trim(v / 1_000_000) + "M" }
        if a >= 10_000 { return trim(v / 1000) + "k" }
        return trim(v)
    }

    private static func trim(_ v: Double) -> String {
        if v == v.rounded() && abs(v) < 1e15 { return String(Int64(v)) }
        var s = String(format: "%.3f", v)
        while s.hasSuffix("0") { s.removeLast() }
        if s.hasSuffix(".") { s.removeLast() }
        return s
    }
}
