import FleetCore

/// The visits of a population run: when each user's sessions start, in run time.
///
/// A session's local start time is drawn from the curve, turned into UTC with the user's zone,
/// then placed in the run: the whole UTC day compressed `compression` times (24 h in 24 min at
/// 60), or only the curve's peak hour. Sessions of one user are at least `min_gap_h` apart.
public enum PopulationSchedule {
    public enum Window: String, Sendable { case day, peakHour = "peak_hour" }

    public struct Visit: Sendable, Equatable {
        /// Seconds from the scenario's start.
        public var t: Double
        public var user: Int
        /// 0 for the user's first visit of the day.
        public var visit: Int
    }

    /// Every visit of `users` users (the first `users` of the population), sorted by time.
    public static func visits(_ spec: PopulationSpec, seed: UInt64, users: Int, window: Window, compression: Double,
                              dayStartMs: Int64 = 0) -> [Visit] {
        let peakStart = Double(ArrivalCurve(spec: spec, dayStartMs: dayStartMs).peakHourStartMinute * 60)
        var out: [Visit] = []
        for u in 0..<users {
            let user = PopulationUser.draw(spec, seed: seed, index: u)
            let offset = Double(LocalTimeZone(user.zone).offsetSeconds(atMs: dayStartMs + 43_200_000))
            var r = SeededRandom(seed: seed ^ 0x5C4E_D01E, stream: UInt64(u))
            var locals: [Double] = []
            for _ in 0..<user.sessions {
                var s = drawLocal(spec.curve, &r)
                var tries = 0
                let gap = spec.minGapH * 3600
                while tries < 20, locals.contains(where: { circularGap($0, s) < gap }) {
                    s = drawLocal(spec.curve, &r)
                    tries += 1
                }
                // A peaked curve may keep drawing near the first visit: then the visit comes
                // `min_gap_h` after the latest one (the user's "later that day").
                if locals.contains(where: { circularGap($0, s) < gap }) {
                    s = ArrivalCurve.wrapDay(locals.max()! + gap)
                }
                locals.append(s)
            }
            // Sorted in UTC so that visit 0 is the user's first of the run.
            let utc = locals.map { ArrivalCurve.wrapDay($0 - offset) }.sorted()
            var n = 0
            for s in utc {
                switch window {
                case .day:
                    out.append(Visit(t: s / compression, user: u, visit: n)); n += 1
                case .peakHour:
                    let into = ArrivalCurve.wrapDay(s - peakStart)
                    if into < 3600 { out.append(Visit(t: into / compression, user: u, visit: n)); n += 1 }
                }
            }
        }
        return out.sorted { ($0.t, $0.user) < ($1.t, $1.user) }
    }

    /// Midnight UTC of today: the day whose timezone offsets (DST) a population uses.
    public static func today() -> Int64 { WallClock.nowMillis() / 86_400_000 * 86_400_000 }

    /// Run seconds the window lasts.
    public static func lengthS(window: Window, compression: Double) -> Double {
        (window == .day ? 86_400 : 3600) / compression
    }

    /// A local start time (seconds after local midnight) drawn from the curve.
    static func drawLocal(_ curve: PopulationSpec.Curve, _ r: inout SeededRandom) -> Double {
        switch curve {
        case .hourly(let w):
            return Double(r.weightedIndex(w)) * 3600 + r.unit() * 3600
        case .reminder(let at, let spread, let base):
            if r.chance(base) { return r.unit() * 86_400 }
            return ArrivalCurve.wrapDay(at * 60 + r.normal() * spread * 60)
        }
    }

    static func circularGap(_ a: Double, _ b: Double) -> Double {
        let d = abs(a - b).truncatingRemainder(dividingBy: 86_400)
        return min(d, 86_400 - d)
    }
}
