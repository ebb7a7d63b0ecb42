import XCTest
import FleetCore
import FleetHTTP
import FleetMetrics
import FleetTestSupport
@testable import FleetRunner

/// The `debug` stall hook really starves the users' pool, and the lag it causes is recorded
/// against the intended start rather than hidden.
final class GeneratorStallTests: XCTestCase {
    func testStallDelaysUsersAndTheLagIsRecorded() async {
        let start = MonotonicClock.now()
        let recorder = Recorder(startNanos: start)
        let stall = GeneratorStall.schedule(DebugHooks(stallAtS: 0.1, stallS: 0.5), start: start, executors: [], say: { _ in })
        // A user due at 0.2 s, in the middle of the stall: its timer fires on time, but nothing
        // in the pool can run it until the stall ends at 0.6 s.
        let intended = start &+ 200_000_000
        await Pause.until(intended)
        let actual = MonotonicClock.now()
        recorder.recordLatency(MetricName("probe"), intended: intended, actual: actual, end: actual)
        await stall.value
        let late = Double(actual &- intended) / 1e9
        XCTAssertGreaterThan(late, 0.3, "the user resumed \(late) s late; the stall should hold it until ~0.6 s")
        let r = recorder.snapshot(.init(runId: "t", profile: "t", seed: 1, target: "-", startedAt: "-"))
        let lag = r.metric(MetricName.schedulingLag)?.corrected.max ?? 0
        XCTAssertGreaterThan(lag, 300_000)
        XCTAssertEqual(r.generatorBehindReasons(lagP99BoundMicros: 100_000).count, 1)
    }

    func testStallOccupiesTheIOLoopsWhenUsersRunThere() async throws {
        var config = HTTPEngine.Configuration()
        config.ioThreads = 2
        let engine = try HTTPEngine(configuration: config)
        defer { engine.shutdown() }
        let start = MonotonicClock.now()
        let said = Box<[String]>([])
        let stall = GeneratorStall.schedule(DebugHooks(stallAtS: 0.1, stallS: 0.5), start: start, executors: engine.userExecutors,
                                            say: { line in said.mutate { $0.append(line) } })
        // Users on either loop, due at 0.2 s: their loop's timer cannot fire while it spins.
        let intended = start &+ 200_000_000
        let lates = try await withThrowingTaskGroup(of: Double.self) { group in
            for e in engine.userExecutors {
                group.addTask(executorPreference: e) {
                    await Pause.until(intended)
                    return Double(MonotonicClock.now() &- intended) / 1e9
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        await stall.value
        XCTAssertEqual(lates.count, 2)
        for late in lates { XCTAssertGreaterThan(late, 0.3, "a user on a loop resumed \(late) s late; the stall holds it until ~0.6 s") }
        XCTAssertEqual(said.value, ["debug: stalling the I/O loops that run the users (2 threads) for 0.5 s"])
    }

    func testDebugHookParsesAndIsChecked() throws {
        let ok = try Profile.parse(try JSONValue.parse("""
        {"name": "d", "duration_s": 10, "debug": {"stall_at_s": 5, "stall_s": 1},
         "scenarios": [{"model": {"type": "per-user-once", "users": 1}, "journeys": {"dailyQuest": 1}}]}
        """), file: "d.json")
        XCTAssertEqual(ok.debug, DebugHooks(stallAtS: 5, stallS: 1))
        XCTAssertThrowsError(try Profile.parse(try JSONValue.parse("""
        {"name": "d", "duration_s": 10, "debug": {"stall_at_s": -1, "stall_s": 120, "pause": 1},
         "scenarios": [{"model": {"type": "per-user-once", "users": 1}, "journeys": {"dailyQuest": 1}}]}
        """), file: "d.json")) { e in
            let paths = Set((e as? ProfileError)?.issues.map(\.path) ?? [])
            XCTAssertEqual(paths, ["debug.stall_at_s", "debug.stall_s", "debug.pause"])
        }
    }
}
