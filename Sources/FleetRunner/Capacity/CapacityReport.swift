import Foundation
import FleetCore
import FleetReport

/// What `fleet capacity` prints and writes: the answer in arrivals, concurrent users and daily
/// active users, `capacity.csv` (one row per step) and `index.html` (the capacity section).
struct CapacityReport {
    let profile: Profile
    let result: CapacityResult
    let target: String
    let elapsedS: Double
    let startedAtMs: Int64
    /// Rows in the stack's own database at the end (the embedded stack's `/_stack/stats`).
    var database: (users: Int64, sessions: Int64)?

    var lines: [String] {
        var out = ["capacity: " + result.headline]
        if let limit = result.limitingSLO, !result.generatorBound { out.append("capacity: limiting SLO: \(limit)") }
        if let p = result.sustainable {
            out.append(String(format: "capacity: at %@ users/s: %.0f concurrent users (mean alive), %.2f journeys/s achieved, turnaround p99 %.0f ms, settlement p99 %.0f ms",
                              CapacityFormat.rate(p.offeredRate), p.concurrentUsers, p.achievedJourneysPerS, p.turnaroundP99Ms, p.settlementP99Ms))
            if let curve = profile.arrivalCurve {
                let peak = curve.peak.rate
                let dau = Double(curve.spec.dailyActiveUsers) * p.offeredRate / max(peak, 1e-12)
                out.append(String(format: "capacity: in daily active users of this population: %.0f (its peak is %.3g users/s per %d DAU)",
                                  dau, peak, curve.spec.dailyActiveUsers))
            } else {
                out.append("capacity: in daily active users: the profile has no population section")
            }
        }
        let users = result.steps.reduce(Int64(0)) { $0 + $1.usersCreated }
        let sessions = result.steps.reduce(Int64(0)) { $0 + $1.sessionsCreated }
        if let d = database {
            out.append("capacity: database reached (the stack's own count): \(d.users) users, \(d.sessions) sessions "
                       + "(the search created \(users) users, \(sessions) sessions)")
        } else {
            out.append("capacity: database reached (created by the search, as the bench counted; the server's own count "
                       + "is not part of the contract): \(users) users, \(sessions) sessions")
        }
        out.append(String(format: "capacity: %d steps in %.0f s%@", result.steps.count, elapsedS,
                          result.converged ? ", converged" : "; stopped: " + (result.stopReason ?? "no further step")))
        return out
    }

    static func stepLine(_ s: CapacityStep) -> String {
        let turnaround = s.turnaroundSamples > 0
            ? String(format: "turnaround p50 %.0f p99 %.0f ms", s.turnaroundP50Ms, s.turnaroundP99Ms) : "turnaround — (no assessment)"
        let settlement = s.settlementSamples > 0 ? String(format: "settlement p99 %.0f ms", s.settlementP99Ms) : "settlement — (none settled)"
        return String(format: "step %d: offered %@ users/s → %@%@ · achieved %.2f journeys/s · %@ · %@ · errors %.2f %% · lag p99 %.0f ms · cpu %.2f · %.0f s%@",
               s.index, CapacityFormat.rate(s.offeredRate), s.verdict.label, s.verdict.detail.isEmpty ? "" : " (\(s.verdict.detail))",
               s.achievedJourneysPerS, turnaround, settlement, s.errorRate * 100, s.lagP99Ms,
               s.generatorCPU, s.durationS, s.steady ? ", steady" : "")
            + (s.hostSteal >= 0.01 ? String(format: " · host steal %.2f cores", s.hostSteal) : "")
            + (s.topError.isEmpty ? "" : " · top error: " + s.topError)
    }

    static let csvHeader = "step,offered_rate,verdict,limit,duration_s,measured_windows,steady,achieved_journeys_per_s,assessments_per_s,"
        + "turnaround_p50_ms,turnaround_p99_ms,turnaround_p99_min_ms,turnaround_p99_max_ms,settlement_p50_ms,settlement_p99_ms,"
        + "settlement_p99_min_ms,settlement_p99_max_ms,error_rate,requests,dropped,lag_p99_ms,generator_cpu,concurrent_users,"
        + "users_created,sessions_created,turnaround_samples,settlement_samples,host_steal_cores"

    var csv: String {
        var out = Self.csvHeader + "\n"
        for s in result.steps {
            func t(_ v: Double) -> String { s.turnaroundSamples > 0 ? g(v) : "" }
            func st(_ v: Double) -> String { s.settlementSamples > 0 ? g(v) : "" }
            let cells: [String] = [
                String(s.index), g(s.offeredRate), s.verdict.label, "\"" + s.verdict.detail.replacingOccurrences(of: "\"", with: "'") + "\"",
                g(s.durationS), String(s.measuredWindows), String(s.steady), g(s.achievedJourneysPerS), g(s.assessmentsPerS),
                // A percentile of no sample is an empty cell, not 0 ms.
                t(s.turnaroundP50Ms), t(s.turnaroundP99Ms), t(s.turnaroundP99Spread.min), t(s.turnaroundP99Spread.max),
                st(s.settlementP50Ms), st(s.settlementP99Ms), st(s.settlementP99Spread.min), st(s.settlementP99Spread.max),
                g(s.errorRate), String(s.requests), String(s.dropped), g(s.lagP99Ms), g(s.generatorCPU), g(s.concurrentUsers),
                String(s.usersCreated), String(s.sessionsCreated), String(s.turnaroundSamples), String(s.settlementSamples),
                g(s.hostSteal),
            ]
            out += cells.joined(separator: ",") + "\n"
        }
        return out
    }

    func g(_ v: Double) -> String { String(format: "%.4g", v) }

    /// Writes `capacity.csv`, `summary.txt` and `index.html` into `dir`; returns the index path.
    func write(to dir: String) throws -> String {
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try Data(csv.utf8).write(to: URL(fileURLWithPath: dir + "/capacity.csv"), options: .atomic)
        let summary = (["profile \(profile.name), target \(target), started \(RFC3339.format(millis: startedAtMs))"] + lines)
        try Data((summary.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: dir + "/summary.txt"), options: .atomic)
        let points = result.steps.map { s in
            CapacityPoint(step: s.index, offered: s.offeredRate, achieved: s.achievedJourneysPerS, verdict: s.verdict.label,
                          detail: s.verdict.detail,
                          turnaround: (s.turnaroundP50Ms, s.turnaroundP99Ms, s.turnaroundP99Spread.min, s.turnaroundP99Spread.max),
                          settlement: (s.settlementP50Ms, s.settlementP99Ms, s.settlementP99Spread.min, s.settlementP99Spread.max),
                          turnaroundSamples: s.turnaroundSamples, settlementSamples: s.settlementSamples)
        }
        let html = CapacityPage.html(title: profile.name, lines: lines, points: points, knee: result.sustainable?.offeredRate)
        let index = dir + "/index.html"
        try Data(html.utf8).write(to: URL(fileURLWithPath: index), options: .atomic)
        return index
    }
}
