import XCTest
@testable import FleetStack

/// The stack's per-user token buckets: limits, and a table that follows active users.
final class RateLimiterTests: XCTestCase {
    func testABurstIsAllowedThenTheUserWaitsForTheNextToken() {
        var limiter = RateLimiter(rate: 2, burst: 3)
        for _ in 0..<3 { XCTAssertNil(limiter.take("u", nowMs: 0)) }
        XCTAssertEqual(limiter.take("u", nowMs: 0), 1, "a token every 0.5 s: wait at least 1 s (whole seconds)")
        XCTAssertNil(limiter.take("other", nowMs: 0), "buckets are per user")
        XCTAssertNil(limiter.take("u", nowMs: 600), "refilled after 0.5 s")
    }

    func testUsersWhoseBucketsRefilledAreForgottenOnceTheTableIsFull() {
        var limiter = RateLimiter(rate: 50, burst: 100, sweepFloor: 1_000)
        // 999 users each take a token: their buckets are below full when used.
        for i in 0..<999 { XCTAssertNil(limiter.take("u\(i)", nowMs: 0)) }
        XCTAssertEqual(limiter.trackedUsers, 999)
        // 3 s later every one of them is full again; the 1,000th bucket triggers the sweep.
        XCTAssertNil(limiter.take("late", nowMs: 3_000))
        XCTAssertEqual(limiter.trackedUsers, 1, "only the user active now is kept")
    }

    func testUsersStillBelowFullAreKeptAndTheNextSweepWaitsForTwiceAsMany() {
        var limiter = RateLimiter(rate: 50, burst: 100, sweepFloor: 1_000)
        for i in 0..<1_000 { XCTAssertNil(limiter.take("u\(i)", nowMs: 0)) }
        // All were active within the refill time: nothing can be forgotten.
        XCTAssertEqual(limiter.trackedUsers, 1_000)
        // The next sweep comes at 2,000 buckets, not on every request.
        for i in 1_000..<1_999 { XCTAssertNil(limiter.take("u\(i)", nowMs: 10)) }
        XCTAssertEqual(limiter.trackedUsers, 1_999)
        XCTAssertNil(limiter.take("v", nowMs: 5_000))
        XCTAssertEqual(limiter.trackedUsers, 1, "swept at 2,000: all refilled by 5 s but the newest")
    }
}
