import Foundation
import FleetCore

/// The arrival rate a population produces over a UTC day, minute by minute.
///
/// rate(t) = DAU × mean sessions × Σ_zones share_z · f((t + offset_z) mod 24 h), where f is the
/// local-time density of a visit's start (per second). Timezones shift the same local pattern,
/// so the peak moves with the mix. Offsets are taken on the day of `dayStartMs` (DST as then).
public struct ArrivalCurve: Sendable {
    /// Visits starting per second, for each UTC minute of the day (1440 values).
    public let perMinute: [Double]
    public let spec: PopulationSpec

    public init(spec: PopulationSpec, dayStartMs: Int64 = 0) {
        self.spec = spec
        let total = spec.timezones.reduce(0) { $0 + $1.weight }
        let zones = spec.timezones.map { (LocalTimeZone($0.zone).offsetSeconds(atMs: dayStartMs + 43_200_000), $0.weight / max(total, 1e-12)) }
        let visits = Double(spec.dailyActiveUsers) * spec.meanSessions
        perMinute = (0..<1440).map { m in
            let t = Double(m * 60 + 30)  // the middle of the minute
            let density = zones.reduce(0.0) { acc, z in
                acc + z.1 * Self.localDensity(spec.curve, localS: Self.wrapDay(t + Double(z.0)))
            }
            return visits * density
        }
    }

    /// Visits per second at the peak minute, and that minute (UTC, minutes after midnight).
    public var peak: (rate: Double, minute: Int) {
        var best = 0
        for i in perMinute.indices where perMinute[i] > perMinute[best] { best = i }
        return (perMinute[best], best)
    }

    /// Concurrent users at the peak by Little's law (arrival rate × mean visit length).
    public var peakConcurrentUsers: Double { peak.rate * spec.visitS }

    /// The peak rate as a multiple of the day's mean rate.
    public var peakToMean: Double {
        let mean = perMinute.reduce(0, +) / 1440
        return mean > 0 ? peak.rate / mean : 0
    }

    /// The hour (start minute, UTC) with the most visits, for a peak-hour run.
    public var peakHourStartMinute: Int {
        var best = 0, bestSum = -1.0
        for s in 0..<1440 {
            let sum = (0..<60).reduce(0.0) { $0 + perMinute[(s + $1) % 1440] }
            if sum > bestSum { bestSum = sum; best = s }
        }
        return best
    }

    /// Seconds folded into one day, 0 ≤ s < 86 400.
    static func wrapDay(_ s: Double) -> Double {
        let r = s.truncatingRemainder(dividingBy: 86_400)
        return r < 0 ? r + 86_400 : r
    }

    /// Density (per second) of a visit starting at `localS` seconds after local midnight.
    static func localDensity(_ curve: PopulationSpec.Curve, localS: Double) -> Double {
        switch curve {
        case .hourly(let w):
            let total = w.reduce(0, +)
            return w[min(23, max(0, Int(localS / 3600)))] / total / 3600
        case .reminder(let at, let spread, let base):
            let sd = spread * 60, mu = at * 60
            var g = 0.0
            // A normal wrapped onto the day: the neighbouring days' tails fold back in.
            for k in -1...1 {
                let z = (localS - mu + Double(k) * 86_400) / sd
                g += exp(-0.5 * z * z) / (sd * (2 * Double.pi).squareRoot())
            }
            return base / 86_400 + (1 - base) * g
        }
    }

    /// Lines printed before and after a run: peak, when, concurrency, the day's shape by hour.
    public func summaryLines() -> [String] {
        let (rate, minute) = peak
        var out = [String(format: "population: %d daily active users × %.2f sessions = %.0f visits/day over %d timezone%@",
                          spec.dailyActiveUsers, spec.meanSessions, Double(spec.dailyActiveUsers) * spec.meanSessions,
                          spec.timezones.count, spec.timezones.count == 1 ? "" : "s")]
        out.append(String(format: "population: peak %.2f users arriving/s at %02d:%02d UTC (%.1f× the day's mean); ~%.0f concurrent users (visit %.0f s)",
                          rate, minute / 60, minute % 60, peakToMean, peakConcurrentUsers, spec.visitS))
        let hours = (0..<24).map { h in (0..<60).reduce(0.0) { $0 + perMinute[h * 60 + $1] } / 60 }
        out.append("population: users/s by UTC hour: " + hours.enumerated().map { String(format: "%02d %.2g", $0.offset, $0.element) }.joined(separator: " · "))
        return out
    }
}
