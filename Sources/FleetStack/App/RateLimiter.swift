import FleetCore

/// A token bucket per user: `rate` tokens a second up to `burst`; a request takes one token.
/// Used on the database queue only, so it needs no lock of its own.
struct RateLimiter {
    private var buckets: [String: (tokens: Double, atMs: Int64)] = [:]
    let rate: Double
    let burst: Double
    /// Buckets are swept when there are this many. After a sweep it becomes twice what was kept
    /// (at least `sweepFloor`), so sweeps stay rare however many users are active at once.
    private var sweepAt: Int
    private let sweepFloor: Int

    init(rate: Double, burst: Double, sweepFloor: Int = 100_000) {
        self.rate = rate
        self.burst = burst
        self.sweepFloor = sweepFloor
        self.sweepAt = sweepFloor
    }

    /// Users with a bucket (swept ones have none: they start full again).
    var trackedUsers: Int { buckets.count }

    /// nil when the request may go ahead, else the seconds until a token is available.
    mutating func take(_ user: String, nowMs: Int64) -> Int? {
        guard rate > 0 else { return nil }
        var b = buckets[user] ?? (burst, nowMs)
        b.tokens = refilled(b, nowMs: nowMs)
        b.atMs = nowMs
        defer {
            buckets[user] = b
            if buckets.count >= sweepAt { sweep(nowMs: nowMs) }
        }
        if b.tokens >= 1 {
            b.tokens -= 1
            return nil
        }
        return max(1, Int(((1 - b.tokens) / rate).rounded(.up)))
    }

    private func refilled(_ b: (tokens: Double, atMs: Int64), nowMs: Int64) -> Double {
        min(burst, b.tokens + Double(max(0, nowMs - b.atMs)) / 1000 * rate)
    }

    /// Forgets the buckets that are full by now (a forgotten user starts full, so nothing changes
    /// for it), so that memory follows active users, not all users. A bucket is judged on its
    /// tokens refilled to `nowMs`: judged on the tokens it held when last used (until 2026-12-03),
    /// a bucket that ever took a token was never forgotten, and past 100,000 such users every
    /// request swept the whole table — at 200,000 users, 43 % of the stack's CPU.
    private mutating func sweep(nowMs: Int64) {
        buckets = buckets.filter { refilled($0.value, nowMs: nowMs) < burst }
        sweepAt = max(sweepFloor, 2 * buckets.count)
    }
}
