import FleetCore

extension Profile {
    /// Hands the profile's population to every scenario whose model is `population`, and reports
    /// such a scenario when the profile has no population to draw from.
    static func attachPopulation(_ spec: PopulationSpec?, seed: UInt64, to scenarios: [Scenario], _ r: ProfileReader) -> [Scenario] {
        scenarios.enumerated().map { i, s in
            guard var m = s.model.model as? PopulationModel else { return s }
            guard let spec else {
                r.issue("scenarios[\(i)].model", "type population needs a top-level \"population\" section")
                return s
            }
            m.spec = spec
            m.seed = seed
            var out = s
            out.model = WorkloadModelConfig(model: m)
            return out
        }
    }

    /// The arrival curve of the profile's population, nil without one.
    public var arrivalCurve: ArrivalCurve? { population.map { ArrivalCurve(spec: $0, dayStartMs: PopulationSchedule.today()) } }

    /// Printed before a run: what the population means in arrivals, users and requests.
    public func populationLines() -> [String] {
        guard let curve = arrivalCurve else { return [] }
        var lines = curve.summaryLines()
        for s in scenarios {
            guard let m = s.model.model as? PopulationModel else { continue }
            let len = PopulationSchedule.lengthS(window: m.window, compression: m.compression)
            lines.append(String(format: "population: scenario %@ runs %@ in %.0f s (compression %g) with %d users (sample %g): peak %.3g users/s in run time",
                                s.name, m.window == .day ? "the UTC day" : "the peak hour", len, m.compression, m.users, m.sample,
                                curve.peak.rate * m.sample * m.compression))
        }
        return lines + expectedRequests(curve.spec).lines(peakVisitsPerS: curve.peak.rate)
    }

    /// The population's forecast requests; the force-update gate is the embedded stack's
    /// (`stack.minAppVersion`, default 1.0.0) unless the run has a target, whose gate is unknown here.
    func expectedRequests(_ spec: PopulationSpec) -> ExpectedRequests {
        let gate = target == nil ? (stack?["minAppVersion"]?.string ?? "1.0.0") : nil
        return ExpectedRequests(spec: spec, minAppVersion: gate)
    }
}
