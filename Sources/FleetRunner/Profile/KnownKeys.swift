import FleetJourneys

/// The `think_times` and `probabilities` keys some journey reads, from the journeys' own
/// declarations (`Journey.keys`), so that a key naming nothing is a validation error.
enum KnownKeys {
    /// Every think-time name a journey pauses on, and the global ones (`default`, …).
    static let thinkTimes: Set<String> = JourneyCatalog.all.values.reduce(JourneyKeys.globalThinkTimes) { $0.union($1.keys.thinkTimes) }

    /// nil when some journey asks `key` (`journey.decision`) or the cohort warm-up reads it
    /// (`cohort.<name>.diagnostic`); otherwise what is wrong with it.
    static func probabilityProblem(_ key: String) -> String? {
        if JourneyKeys.cohortProbabilities.contains(key) { return nil }
        guard let dot = key.firstIndex(of: "."), let journey = JourneyName(rawValue: String(key[..<dot]))?.journey else {
            return "expected 'journey.decision' with a journey of \(JourneyName.allCases.map(\.rawValue).sorted().joined(separator: ", ")), "
                + "or 'cohort.<name>.diagnostic'"
        }
        let decision = String(key[key.index(after: dot)...])
        guard journey.keys.decisions.contains(decision) else {
            return "\(journey.name) makes no decision '\(decision)' (its decisions: \(journey.keys.decisions.sorted().joined(separator: ", ")))"
        }
        return nil
    }
}
