import FleetCore
import FleetJourneys

/// What a population asks of each endpoint, before anything is sent: the visits' journey mix
/// (cohort shares × each cohort's journeys) times each journey's mean requests per visit as
/// measured on the reference stack (`RequestsPerVisit`), times the curve's arrival rate.
///
/// It is a forecast, and says so where it is printed: branch probabilities are the journeys'
/// defaults and status polls follow the turnaround the table was measured at. The figures after
/// a run are measured (`populationLines(after:)`).
public struct ExpectedRequests: Sendable {
    /// Mean requests per visit, by endpoint template.
    public let perVisit: [String: Double]
    /// Share of visits whose app is below the stack's `minAppVersion` (they stop at the gate).
    public let gatedShare: Double

    public init(spec: PopulationSpec, minAppVersion: String?) {
        let versions = spec.appVersions.reduce(0) { $0 + $1.weight }
        var gated = 0.0
        if let min = minAppVersion, versions > 0 {
            gated = spec.appVersions.filter { AppVersion.less($0.value, than: min) }.reduce(0) { $0 + $1.weight } / versions
        }
        let cohortTotal = spec.cohorts.values.reduce(0, +)
        var out: [String: Double] = [:]
        for (cohort, share) in spec.cohorts where share > 0 {
            let mix = spec.journeysByCohort[cohort] ?? Population.defaultJourneyWeights[cohort] ?? [.dailyQuest: 1]
            let mixTotal = mix.values.reduce(0, +)
            for (journey, w) in mix where w > 0 {
                let weight = share / max(cohortTotal, 1e-12) * w / max(mixTotal, 1e-12) * (1 - gated)
                for (endpoint, n) in RequestsPerVisit.measured[journey.rawValue] ?? [:] { out[endpoint, default: 0] += weight * n }
            }
        }
        // A gated app's sign-in is answered 426 and the visit ends there.
        if gated > 0 { out["POST /auth/anonymous", default: 0] += gated }
        perVisit = out
        gatedShare = gated
    }

    public var requestsPerVisit: Double { perVisit.values.reduce(0, +) }

    /// Requests per second by endpoint at `visitsPerS`, busiest first.
    public func rates(visitsPerS: Double) -> [(endpoint: String, perS: Double)] {
        perVisit.map { ($0.key, $0.value * visitsPerS) }.sorted { ($0.1, $1.0) > ($1.1, $0.0) }
    }

    /// Lines printed before a run (and by `fleet capacity`).
    public func lines(peakVisitsPerS: Double, top: Int = 12) -> [String] {
        var out = [String(format: "population: expected at the peak: ~%.3g requests/s (%.1f per visit; forecast from each journey's "
                          + "requests per visit as measured on the reference stack, default branch probabilities)",
                          requestsPerVisit * peakVisitsPerS, requestsPerVisit)]
        if gatedShare > 0 {
            out.append(String(format: "population:   %.1f %% of visits run an app below min_app_version and stop at the 426 gate",
                              gatedShare * 100))
        }
        for r in rates(visitsPerS: peakVisitsPerS).prefix(top) {
            out.append(String(format: "population:   expected %@ %.3g/s", r.endpoint, r.perS))
        }
        return out
    }
}
