import FleetCore
import Synchronization

/// Draws the injected faults of a route (latency and errors) from the stack's seeded generator.
final class FaultInjector: Sendable {
    private let rng: Mutex<SeededRandom>
    private let faults: [String: RouteFault]

    init(faults: [String: RouteFault], seed: UInt64) {
        self.faults = faults
        rng = Mutex(SeededRandom(seed: seed, stream: 0xFA017))
    }

    var isEmpty: Bool { faults.isEmpty }

    /// The delay (ms) and the error (if any) for one request on `template`.
    func draw(template: String) -> (delayMs: Double, error: APIError?) {
        guard let f = faults[template] ?? faults["*"] else { return (0, nil) }
        return rng.withLock { rng in
            var delay = f.latencyMedianMs
            if f.latencySigma > 0, f.latencyMedianMs > 0 {
                delay = min(600_000, rng.lognormal(median: f.latencyMedianMs, sigma: f.latencySigma))
            }
            guard f.errorFraction > 0, rng.chance(f.errorFraction) else { return (delay, nil) }
            let e = f.errorStatus == 500
                ? APIError.internalError("injected fault on \(template)")
                : APIError.unavailable("injected fault on \(template)", retryAfterS: 1)
            return (delay, e)
        }
    }

    /// A seeded coin for the lost-submit bug.
    func chance(_ p: Double) -> Bool { rng.withLock { $0.chance(p) } }
}
