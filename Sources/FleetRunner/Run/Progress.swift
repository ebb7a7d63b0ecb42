import FleetCore
import FleetMetrics

/// One line of live progress: elapsed / planned, active users, req/s, p99 turnaround, errors.
public struct ProgressLine {
    var lastRequests: Int64 = 0
    var lastInstant: UInt64 = 0

    public init() {}

    public mutating func render(_ t: LiveTotals, planned: Double, active: Int, inFlight: Int, now: UInt64) -> String {
        let dt = lastInstant == 0 ? Double(t.elapsedNanos) / 1e9 : Double(now &- lastInstant) / 1e9
        let rate = dt > 0 ? Double(t.requests - lastRequests) / dt : 0
        lastRequests = t.requests
        lastInstant = now
        let p99 = t.turnaroundCount > 0 ? String(format1(Double(t.turnaroundP99Micros) / 1000)) + " ms" : "-"
        return "[\(format1(Double(t.elapsedNanos) / 1e9))s/\(Int(planned))s] users \(active) · in flight \(inFlight) · "
            + "\(Int(rate.rounded())) req/s · turnaround p99 \(p99) · journeys \(t.journeysCompleted)/\(t.journeysStarted) done"
            + " · errors \(t.errors)/\(t.requests)"
    }

    func format1(_ x: Double) -> String {
        let r = (x * 10).rounded() / 10
        return r == r.rounded() ? "\(Int(r)).0" : "\(r)"
    }
}
