/// The adaptive search, apart from running steps, so that it can be driven by scripted outcomes.
///
/// As Envoy Nighthawk's adaptive load controller does it: the rate grows exponentially while
/// steps pass; after the first step that does not pass, it bisects between the highest passing
/// rate and the lowest non-passing one until they are within `tolerance` of each other. An
/// invalid step (the generator fell behind) bounds the search from above like a failure, because
/// no higher load could be measured either; when such a step is the final upper bound the answer
/// is "generator-bound", never a stack limit.
public struct CapacitySearch: Sendable {
    public let settings: CapacitySettings
    public private(set) var steps: [CapacityStep] = []

    public init(settings: CapacitySettings) { self.settings = settings }

    /// The highest passing step so far.
    public var highestPass: CapacityStep? {
        steps.filter { $0.verdict == .pass }.max { $0.offeredRate < $1.offeredRate }
    }

    /// The lowest step that did not pass (failed or invalid) above the highest pass.
    public var lowestNonPass: CapacityStep? {
        let floor = highestPass?.offeredRate ?? 0
        return steps.filter { $0.verdict != .pass && $0.offeredRate > floor }.min { $0.offeredRate < $1.offeredRate }
    }

    public mutating func record(_ step: CapacityStep) { steps.append(step) }

    /// The next rate to try, or nil when the search is over.
    public func nextRate() -> Double? {
        guard !steps.isEmpty else { return settings.startRate }
        let pass = highestPass, upper = lowestNonPass
        switch (pass, upper) {
        case (nil, nil):
            return settings.startRate
        case (let p?, nil):
            return p.offeredRate * settings.growth
        case (nil, let u?):
            // Nothing passed yet: step down until something does, or the floor is reached.
            let next = u.offeredRate / settings.growth
            return next < settings.minRate ? nil : next
        case (let p?, let u?):
            if (u.offeredRate - p.offeredRate) / p.offeredRate <= settings.tolerance { return nil }
            return (p.offeredRate + u.offeredRate) / 2
        }
    }

    /// The answer so far (also when the search was cut short).
    public func result(stopReason: String? = nil) -> CapacityResult {
        let pass = highestPass, upper = lowestNonPass
        var r = CapacityResult(sustainable: pass, nextFailing: upper, steps: steps)
        r.converged = stopReason == nil && nextRate() == nil && pass != nil && upper != nil
        r.stopReason = stopReason
        if let u = upper, case .invalid = u.verdict { r.generatorBound = true }
        if let u = upper, case .fail(let limit) = u.verdict { r.limitingSLO = limit }
        return r
    }
}

/// What a capacity search found.
public struct CapacityResult: Sendable {
    /// The highest passing step (nil: nothing passed).
    public var sustainable: CapacityStep?
    /// The lowest non-passing step above it (nil: nothing failed within the bounds).
    public var nextFailing: CapacityStep?
    public var steps: [CapacityStep]
    /// Bisection reached the tolerance.
    public var converged = false
    /// Why the search ended before converging (time budget, interrupted, floor reached).
    public var stopReason: String?
    /// The upper bound is a step where the generator fell behind.
    public var generatorBound = false
    /// The SLO the next failing step broke.
    public var limitingSLO: String?

    /// One sentence for the terminal and the report.
    public var headline: String {
        let f = { (r: Double) in CapacityFormat.rate(r) }
        if generatorBound, let u = nextFailing {
            let below = sustainable.map { "; the highest rate measured with the generator keeping up passed at \(f($0.offeredRate))/s" } ?? ""
            return "generator-bound at \(f(u.offeredRate)) users/s (\(u.verdict.detail)): the stack's limit was not reached\(below)"
        }
        switch (sustainable, nextFailing) {
        case (let p?, let u?):
            return "highest sustainable arrival rate \(f(p.offeredRate)) users/s; next failing \(f(u.offeredRate)) users/s"
                + " (limited by \(limitingSLO ?? "?"))"
        case (let p?, nil):
            return "highest sustainable arrival rate \(f(p.offeredRate)) users/s; no failing rate found within the search's bounds"
        case (nil, let u?):
            return "no sustainable rate found: even \(f(u.offeredRate)) users/s failed (\(u.verdict.detail))"
        case (nil, nil):
            return "no step completed"
        }
    }
}

enum CapacityFormat {
    static func rate(_ r: Double) -> String {
        r >= 100 ? String(format: "%.0f", r) : r >= 10 ? String(format: "%.1f", r) : String(format: "%.2f", r)
    }
}
