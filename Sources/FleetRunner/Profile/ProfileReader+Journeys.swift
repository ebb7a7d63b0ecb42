import FleetCore
import FleetJourneys

extension ProfileReader {
    /// A `{journey: weight}` object whose names parse as `JourneyName`s; an unknown name is an
    /// issue at its path, listing the journeys.
    func journeyWeights(_ o: JSONObject, _ key: String, _ path: String, required: Bool = false) -> [JourneyName: Double]? {
        guard let w = weights(o, key, path, allowed: Set(JourneyName.allCases.map(\.rawValue)), required: required) else { return nil }
        var out: [JourneyName: Double] = [:]
        for (name, weight) in w { if let j = JourneyName(rawValue: name) { out[j] = weight } }  // all parse: `allowed` checked them
        return out
    }
}
