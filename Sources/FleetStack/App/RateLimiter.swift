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
