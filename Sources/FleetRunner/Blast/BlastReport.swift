import FleetHTTP
import FleetMetrics
import Foundation

/// What a blast measured, and its wrk-style text.
public struct BlastReport: Sendable {
    public let options: BlastOptions
    /// From the first send to the end of the measuring interval.
    public let elapsedSeconds: Double
    /// Latency of every request completed in the interval (errors included), microseconds: from
    /// the intended send time under a rate (corrected), from the actual send otherwise.
    public let latencyMicros: Histogram
    /// Responses of any status within the interval (transport errors are in `errors`, as in wrk).
    public let requests: Int64
    public let non2xx: Int64
    public let errors: [HTTPErrorKind: Int64]
    /// CPU seconds of this process (user + system) over the blast.
    public let cpuSeconds: Double

    public var errorCount: Int64 { errors.values.reduce(0, +) }
    public var requestsPerSecond: Double { elapsedSeconds > 0 ? Double(requests) / elapsedSeconds : 0 }
    /// Client CPU seconds per 1,000 requests (the efficiency figure of bench/RESULTS.md).
    public var cpuSecondsPerThousand: Double { requests > 0 ? cpuSeconds * 1000 / Double(requests) : 0 }

    /// p50, p90, p99, p99.9 and max, microseconds.
    public var percentiles: [(label: String, micros: Int64)] {
        [("50%", 50), ("90%", 90), ("99%", 99), ("99.9%", 99.9)].map { ($0.0, latencyMicros.value(atPercentile: $0.1)) }
            + [("max", latencyMicros.max)]
    }

    /// The report as wrk prints it: header, latency distribution, totals, requests/sec.
    public func render() -> String {
        var lines: [String] = []
        let mode = options.asRecorded ? "as recorded, latency from intended send (corrected)"
            : options.rate.map { "rate \(Self.number($0)) req/s, latency from intended send (corrected)" }
            ?? "closed loop, latency from actual send"
        lines.append("Blast \(String(format: "%.0f", options.durationSeconds))s @ \(options.url)")
        lines.append("  \(options.connections) connections, \(options.ioThreads) I/O thread\(options.ioThreads == 1 ? "" : "s"), \(mode)")
        lines.append("  Latency Distribution")
        for (label, micros) in percentiles {
            lines.append("  " + label.leftPad(7) + "  " + Self.duration(micros).leftPad(10))
        }
        lines.append("  \(requests) requests in \(String(format: "%.2f", elapsedSeconds))s, \(errorCount) errors")
        if non2xx > 0 { lines.append("  Non-2xx or 3xx responses: \(non2xx)") }
        if errorCount > 0 {
            let parts = errors.sorted { $0.key.rawValue < $1.key.rawValue }.map { "\($0.key.rawValue) \($0.value)" }
            lines.append("  Errors: " + parts.joined(separator: ", "))
        }
        lines.append("Requests/sec: " + String(format: "%.2f", requestsPerSecond))
        lines.append("CPU: " + String(format: "%.2f s (%.3f s per 1000 requests)", cpuSeconds, cpuSecondsPerThousand))
        return lines.joined(separator: "\n")
    }

    /// `812us`, `1.25ms`, `2.10s`, as wrk writes durations.
    static func duration(_ micros: Int64) -> String {
        if micros < 1000 { return "\(micros)us" }
        if micros < 1_000_000 { return String(format: "%.2fms", Double(micros) / 1000) }
        return String(format: "%.2fs", Double(micros) / 1e6)
    }

    static func number(_ x: Double) -> String {
        x == x.rounded() ? String(Int(x)) : String(format: "%.2f", x)
    }
}

private extension String {
    func leftPad(_ width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}
