import FleetCore
import FleetJourneys

/// The profile's `population` section: who the users are and when they come (issue 13).
///
/// From it Fleet derives the arrival rate at every moment of the day (`ArrivalCurve`) and, with a
/// scenario whose model is `population`, the visits of a run: each daily active user walks its
/// sessions at times drawn from the curve in its own timezone, as the same account and device.
public struct PopulationSpec: Sendable {
    public enum Curve: Sendable, Equatable {
        /// Weights of the 24 local hours (share of a day's visits starting in each hour).
        case hourly([Double])
        /// Visits around the local reminder time: a wrapped normal of `spreadMin` minutes around
        /// `reminderMin` (minutes after local midnight), over a uniform floor holding `baseShare` of visits.
        case reminder(reminderMin: Double, spreadMin: Double, baseShare: Double)
    }

    public var dailyActiveUsers: Int
    /// Sessions per active user per day: value → weight.
    public var sessionsPerUser: [(count: Int, weight: Double)] = [(1, 1)]
    public var curve: Curve = .reminder(reminderMin: 8 * 60 + 30, spreadMin: 45, baseShare: 0.2)
    public var timezones: [(zone: String, weight: Double)] = [("UTC", 1)]
    public var locales: [(value: String, weight: Double)] = [("en-US", 1)]
    public var appVersions: [(value: String, weight: Double)] = []
    public var cohorts: [String: Double] = ["new": 1]
    /// Journey mix of a visit by cohort; a cohort not named walks its default mix.
    public var journeysByCohort: [String: [JourneyName: Double]] = [:]
    /// Mean length of a visit in seconds, for concurrent users by Little's law (L = λ·W).
    public var visitS = 120.0
    /// Two visits of one user are at least this far apart (local hours).
    public var minGapH = 2.0

    public var meanSessions: Double {
        let w = sessionsPerUser.reduce(0) { $0 + $1.weight }
        return sessionsPerUser.reduce(0) { $0 + Double($1.count) * $1.weight } / max(w, 1e-12)
    }

    static let known: Set<String> = ["daily_active_users", "sessions_per_user", "curve", "timezones", "locales", "app_versions",
                                     "cohorts", "journeys_by_cohort", "visit_s", "min_gap_h"]

    static func parse(_ v: JSONValue?, _ r: ProfileReader) -> PopulationSpec? {
        guard let v, let o = r.object(v, "population", known: known) else { return nil }
        let p = "population"
        let dau = r.integer(o, "daily_active_users", p, required: true, atLeast: 1) ?? 1
        var s = PopulationSpec(dailyActiveUsers: dau)
        if let w = r.weights(o, "sessions_per_user", p) {
            var list: [(Int, Double)] = []
            for (k, weight) in w.sorted(by: { $0.key < $1.key }) {
                guard let n = Int(k), n >= 1, n <= 50 else { r.issue("\(p).sessions_per_user.\(k)", "must be a whole number of sessions 1…50"); continue }
                list.append((n, weight))
            }
            if !list.isEmpty { s.sessionsPerUser = list }
        }
        if let c = o["curve"] { s.curve = parseCurve(c, r) ?? s.curve }
        if let tz = r.weights(o, "timezones", p) {
            for k in tz.keys where LocalTimeZone(k).identifier == "UTC" && k != "UTC" {
                r.issue("\(p).timezones.\(k)", "unknown timezone (expected an IANA name or ±HH:MM)")
            }
            s.timezones = tz.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        }
        if let l = r.weights(o, "locales", p) { s.locales = l.sorted { $0.key < $1.key }.map { ($0.key, $0.value) } }
        if let a = r.weights(o, "app_versions", p) { s.appVersions = a.sorted { $0.key < $1.key }.map { ($0.key, $0.value) } }
        s.cohorts = r.weights(o, "cohorts", p, allowed: JourneyCatalog.cohorts) ?? s.cohorts
        if let j = r.object(o["journeys_by_cohort"], "\(p).journeys_by_cohort", known: JourneyCatalog.cohorts) {
            for k in j.keys.sorted() {
                if let mix = r.journeyWeights(j, k, "\(p).journeys_by_cohort") { s.journeysByCohort[k] = mix }
            }
        }
        s.visitS = r.number(o, "visit_s", p, greaterThan: 0) ?? s.visitS
        s.minGapH = r.number(o, "min_gap_h", p, atLeast: 0, atMost: 12) ?? s.minGapH
        return s
    }

    static func parseCurve(_ v: JSONValue, _ r: ProfileReader) -> Curve? {
        let p = "population.curve"
        guard let o = v.object else { r.issue(p, "must be an object with a \"type\""); return nil }
        switch o["type"]?.string {
        case "hourly":
            _ = r.object(v, p, known: ["type", "weights"])
            guard let arr = o["weights"]?.array, arr.count == 24, arr.allSatisfy({ ($0.double ?? -1) >= 0 }) else {
                r.issue("\(p).weights", "must be an array of 24 weights >= 0 (local hours 0…23)"); return nil
            }
            let w = arr.compactMap(\.double)
            if w.reduce(0, +) <= 0 { r.issue("\(p).weights", "at least one weight must be > 0"); return nil }
            return .hourly(w)
        case "reminder":
            _ = r.object(v, p, known: ["type", "reminder_time", "spread_min", "base_share"])
            var at = 8.0 * 60 + 30
            if let t = r.string(o, "reminder_time", p) {
                let parts = t.split(separator: ":").compactMap { Int($0) }
                guard parts.count == 2, (0..<24).contains(parts[0]), (0..<60).contains(parts[1]) else {
                    r.issue("\(p).reminder_time", "must be HH:MM local time (e.g. \"08:30\")"); return nil
                }
                at = Double(parts[0] * 60 + parts[1])
            }
            let spread = r.number(o, "spread_min", p, greaterThan: 0, atMost: 720) ?? 45
            let base = r.number(o, "base_share", p, atLeast: 0, atMost: 1) ?? 0.2
            return .reminder(reminderMin: at, spreadMin: spread, baseShare: base)
        default:
            r.issue("\(p).type", "must be one of hourly, reminder")
            return nil
        }
    }
}
