import FleetCore

/// A token bucket per user: `rate` tokens a second up to `burst`; a request takes one token.
/// Used on the database queue only, so it needs no lock of its own.
struct RateLimiter {
    private var buckets: [String: (tokens: Double, atMs: Int64)] = [:]
    let rate: Double
    let burst: Double

    init(rate: Double, burst: Double) {
        self.rate = rate
        self.burst = burst
    }

    /// nil when the request may go ahead, else the seconds until a token is available.
    mutating func take(_ user: String, nowMs: Int64) -> Int? {
        guard rate > 0 else { return nil }
        var b = buckets[user] ?? (burst, nowMs)
        b.tokens = min(burst, b.tokens + Double(max(0, nowMs - b.atMs)) / 1000 * rate)
        b.atMs = nowMs
        defer {
            buckets[user] = b
            // Forget full buckets now and then so that memory follows active users, not all users.
            if buckets.count > 100_000 { buckets = buckets.filter { $0.value.tokens < burst } }
        }
        if b.tokens >= 1 {
            b.tokens -= 1
            return nil
        }
        return max(1, Int(((1 - b.tokens) / rate).rounded(.up)))
    }
}

/// Draws the injected faults of a route (latency and errors) from the stack's seeded generator.
final class FaultInjector: @unchecked Sendable {
    // @unchecked: `rng` is only touched under `lock`; `faults` is immutable.
    private let lock = Lock()
    private var rng: SeededRandom
    private let faults: [String: RouteFault]

    init(faults: [String: RouteFault], seed: UInt64) {
        self.faults = faults
        rng = SeededRandom(seed: seed, stream: 0xFA017)
    }

    var isEmpty: Bool { faults.isEmpty }

    /// The delay (ms) and the error (if any) for one request on `template`.
    func draw(template: String) -> (delayMs: Double, error: APIError?) {
        guard let f = faults[template] ?? faults["*"] else { return (0, nil) }
        return lock.withLock {
            var delay = f.latencyMedianMs
            if f.latencySigma > 0, f.latencyMedianMs > 0 { delay = rng.lognormal(median: f.latencyMedianMs, sigma: f.latencySigma) }
            guard f.errorFraction > 0, rng.chance(f.errorFraction) else { return (delay, nil) }
            let e = f.errorStatus == 500
                ? APIError.internalError("injected fault on \(template)")
                : APIError.unavailable("injected fault on \(template)", retryAfterS: 1)
            return (delay, e)
        }
    }

    /// A seeded coin for the lost-submit bug.
    func chance(_ p: Double) -> Bool { lock.withLock { rng.chance(p) } }
}
