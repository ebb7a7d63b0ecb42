import FleetTestSupport
import XCTest
import FleetCore
import FleetMetrics
@testable import FleetRunner

/// `--shard i/N` through the same `Fleet.runScenarios` a run uses: the shards' users are a
/// partition of the single run's users, each with the intended start (offset from the run's
/// start) and the decisions it has in the single run.
final class ShardSelectionTests: XCTestCase {
    struct User: Hashable { var scenario: Int; var local: Int; var offsetMicros: Int64 }

    static let profile = """
    {"name": "shards", "seed": 99, "duration_s": 30, "scenarios": [
      {"name": "once", "model": {"type": "per-user-once", "users": 23, "ramp_s": 0.5, "max_duration_s": 5},
       "journeys": {"dailyQuest": 1, "freePractice": 1}, "cohorts": {"new": 1, "subscriber": 1}},
      {"name": "poisson", "model": {"type": "constant-arrival-rate", "rate": 60, "duration_s": 0.8},
       "journeys": {"dailyQuest": 1, "expiry": 1}},
      {"name": "ramp", "start_s": 0.1, "model": {"type": "ramping-arrival-rate", "start_rate": 10,
       "stages": [{"duration_s": 0.6, "rate": 80}]}, "journeys": {"firstLaunch": 1}}]}
    """

    /// Runs the schedule with users that only say who they are (and end at once).
    func users(_ p: Profile, shard: Shard) async -> [User] {
        let seen = Box<[User]>([]), control = RunControl()
        let start = MonotonicClock.now() &+ 20_000_000
        await Fleet.runScenarios(profile: p, start: start, control: control, recorder: Recorder(), shard: shard) { s, local, intended in
            seen.append(User(scenario: s, local: local, offsetMicros: Int64(intended &- start) / 1000))
        }
        _ = await control.drain(until: MonotonicClock.now() &+ 5_000_000_000)
        return seen.value
    }

    func testShardsPartitionTheSingleRunsUsersWithTheirOwnStartsAndDecisions() async throws {
        let p = try Profile.parse(try JSONValue.parse(Self.profile), file: "shards.json")
        let single = await users(p, shard: .whole)
        XCTAssertEqual(Set(single).count, single.count, "every user once")
        XCTAssertEqual(single.filter { $0.scenario == 0 }.count, 23)
        XCTAssertGreaterThan(single.filter { $0.scenario == 1 }.count, 20, "the Poisson scenario ran")
        XCTAssertGreaterThan(single.filter { $0.scenario == 2 }.count, 10, "the ramp ran")
        for n in [2, 3, 5] {
            var union: [User] = []
            for i in 0..<n {
                let part = await users(p, shard: try Shard(index: i, count: n))
                XCTAssertTrue(part.allSatisfy { $0.local % n == i }, "shard \(i)/\(n) ran only users ≡ \(i) mod \(n)")
                union += part
            }
            XCTAssertEqual(union.count, single.count, "\(n) shards: no user twice, none lost")
            XCTAssertEqual(Set(union), Set(single), "\(n) shards: the same users at the same intended offsets")
        }
        // What a user decides comes from (seed, scenario, number) only: shard 1/3's users are the
        // single run's, and they differ from one another (the numbers really reach the generator).
        let picks = Set(single.map { Fleet.decisions(profile: p, scenario: $0.scenario, local: $0.local).credentials.installId })
        XCTAssertEqual(picks.count, single.count, "every user has its own install id")
    }

    /// Closed models: a shard runs the slots it owns, and slot k's users are numbered n·users + k
    /// whichever slot finishes first, so the first users of all shards are the single run's slots.
    func testClosedModelShardsRunTheirOwnSlots() async throws {
        let p = try Profile.parse(try JSONValue.parse("""
        {"name": "closed", "seed": 4, "duration_s": 10, "scenarios": [
          {"name": "pop", "model": {"type": "constant-population", "users": 7, "duration_s": 0.3}, "journeys": {"dailyQuest": 1}}]}
        """), file: "closed.json")
        var firsts: [Int] = []
        for i in 0..<3 {
            let part = await users(p, shard: try Shard(index: i, count: 3))
            let slots = Set(part.map { $0.local % 7 })
            XCTAssertEqual(slots, Set((0..<7).filter { $0 % 3 == i }), "shard \(i)/3 runs slots ≡ \(i) mod 3")
            XCTAssertGreaterThan(part.count, slots.count, "slots were refilled as users ended")
            firsts += part.filter { $0.local < 7 }.map(\.local)
        }
        XCTAssertEqual(firsts.sorted(), Array(0..<7))
    }

    func testShardParsingAndShares() throws {
        let s = try Shard.parse("2/5")
        XCTAssertEqual([s.index, s.count], [2, 5])
        XCTAssertEqual((0..<12).filter(s.owns), [2, 7])
        XCTAssertEqual(s.share(of: 12), 2)
        XCTAssertEqual(s.share(of: 2), 0)
        XCTAssertEqual((0..<5).map { try! Shard(index: $0, count: 5).share(of: 13) }.reduce(0, +), 13)
        for bad in ["5/5", "-1/4", "1", "a/b", "0/0"] {
            XCTAssertThrowsError(try Shard.parse(bad), bad)
        }
    }
}
