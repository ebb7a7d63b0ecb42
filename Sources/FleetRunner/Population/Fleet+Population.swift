import FleetClient
import FleetCore
import FleetJourneys

/// One visit of a population user, as `Fleet.walkUser` needs it.
struct PopulationVisitLease {
    var user: Int
    var device: Device
    var cohort: String
    var journey: JourneyName
    /// The device has visited before (its account, history and entitlement are on the stack).
    var returning: Bool
}

/// nil inside: the user's device is still busy with an earlier visit (the visit is skipped, counted).
struct PopulationLeaseResult { var value: PopulationVisitLease? }

extension Fleet {
    /// For a scenario of model `population`: the user behind `local`, its device (new or the one it
    /// used before) and the journey of this visit from its cohort's mix. nil for other models.
    func populationLease(scenario: Scenario, local: Int, random: inout SeededRandom) -> PopulationLeaseResult? {
        guard let m = scenario.model.model as? PopulationModel, let spec = m.spec else { return nil }
        let (u, _) = PopulationUser.decode(local)
        let traits = PopulationUser.draw(spec, seed: m.seed, index: u)
        let mix = spec.journeysByCohort[traits.cohort] ?? [:]
        let (journey, _) = Population.pick(journeys: mix, cohorts: [traits.cohort: 1], random: &random)
        switch returning.lease(u) {
        case .busy:
            return PopulationLeaseResult(value: nil)
        case .new:
            return PopulationLeaseResult(value: PopulationVisitLease(user: u, device: Device(credentials: traits.credentials()),
                                                                     cohort: traits.cohort, journey: journey, returning: false))
        case .returning(let d):
            return PopulationLeaseResult(value: PopulationVisitLease(user: u, device: d, cohort: traits.cohort, journey: journey,
                                                                     returning: true))
        }
    }
}

extension Fleet {
    /// For a scenario with `visitors`: user `local` as a new user of that population (its traits,
    /// its cohort, a journey from its cohort's mix). nil for other scenarios.
    func visitorDraw(scenario: Scenario, local: Int, random: inout SeededRandom) -> (journey: JourneyName, cohort: String, credentials: Credentials)? {
        guard let spec = scenario.visitors else { return nil }
        let traits = PopulationUser.draw(spec, seed: profile.seed, index: local)
        let (journey, _) = Population.pick(journeys: spec.journeysByCohort[traits.cohort] ?? [:], cohorts: [traits.cohort: 1],
                                           random: &random)
        return (journey, traits.cohort, traits.credentials())
    }
}
