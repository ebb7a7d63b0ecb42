import XCTest
import FleetMetrics
@testable import FleetRunner

final class StepJudgeTests: XCTestCase {
    var judge: StepJudge {
        var s = CapacitySettings()
        s.windowS = 3
        s.steadyWindows = 4
        s.turnaroundP99Ms = 8000
        s.settlementP99Ms = 3000
        s.maxLagMs = 100
        return StepJudge(settings: s, cores: 2)
    }

    /// A window with `n` assessments of `turnMs` (user-seen) and `serverMs` (stack-side), `users` alive.
    func window(n: Int = 30, turnMs: Int64 = 2000, serverMs: Int64 = 320, users: Int = 40, lagMs: Int64 = 5,
                requests: Int64 = 300, errors: Int64 = 0, cpu: Double = 0.3, submits: Int? = nil) -> StepWindow {
        var w = StepWindow()
        for _ in 0..<n {
            w.turnaround.record(turnMs * 1000)
            w.serverTurnaround.record(serverMs * 1000)
            w.settlement.record(80_000)
            w.lag.record(lagMs * 1000)
        }
        w.assessments = Int64(n)
        w.submits = Int64(submits ?? n)
        w.journeysCompleted = Int64(n / 2)
        w.activeUsers = users
        w.requests = requests
        w.errors = errors
        w.cpuSeconds = cpu
        return w
    }

    func testStableWindowsAreSteadyAndPass() {
        let ws = [window(n: 30), window(n: 33), window(n: 28, serverMs: 400), window(n: 31, users: 42)]
        XCTAssertTrue(judge.steady(ws))
        let s = judge.score(index: 1, rate: 5, measured: ws, steady: true, durationS: 30)
        XCTAssertEqual(s.verdict, .pass)
        XCTAssertEqual(s.turnaroundP99Ms, 2000, accuracy: 2)
        XCTAssertEqual(s.concurrentUsers, 40.5, accuracy: 0.01)
        XCTAssertEqual(s.achievedJourneysPerS, Double(15 + 16 + 14 + 15) / 12, accuracy: 1e-9)
    }

    func testAGrowingQueueIsNotSteadyAndFailsOnTurnaround() {
        // The stack's turnaround climbs window after window while users pile up: queue growing.
        let ws = [window(serverMs: 400, users: 40), window(serverMs: 900, users: 55), window(serverMs: 1500, users: 70),
                  window(serverMs: 2100, users: 85)]
        XCTAssertFalse(judge.steady(ws))
        let s = judge.score(index: 1, rate: 8, measured: ws, steady: false, durationS: 60)
        XCTAssertEqual(s.verdict, .fail(limit: "turnaround p99 (no steady state: still growing)"))
    }

    func testASlowSteadyRiseOfTheStacksTurnaroundIsNotSteady() {
        // Just past the knee: the stack-side turnaround climbs 100 ms a window for 12 windows
        // (no four consecutive windows move by more than the band), while counts look balanced.
        let ws = (0..<12).map { window(serverMs: 300 + 100 * Int64($0)) }
        XCTAssertTrue(judge.steady(Array(ws.suffix(4))), "four windows alone look steady")
        XCTAssertFalse(judge.steady(ws))
        XCTAssertEqual(StepJudge.trendGrowth(ws.map { Double($0.serverTurnaround.value(atPercentile: 50)) / 1000 }), 1100, accuracy: 5)
        XCTAssertEqual(judge.score(index: 5, rate: 7, measured: ws, steady: false, durationS: 60).verdict,
                       .fail(limit: "turnaround p99 (no steady state: still growing)"))
        // Jitter without a trend stays steady.
        let flat = (0..<12).map { window(serverMs: $0 % 2 == 0 ? 300 : 480) }
        XCTAssertTrue(judge.steady(flat))
    }

    func testMoreSubmitsAcceptedThanFinishedIsAGrowingQueue() {
        // 45 submits accepted per window, 30 finished: the stack holds 15 more each window, even
        // though each window's turnaround looks the same (the client polls every 2 s).
        let ws = (0..<4).map { _ in window(n: 30, submits: 45) }
        XCTAssertFalse(judge.steady(ws))
        let s = judge.score(index: 1, rate: 8, measured: ws, steady: false, durationS: 60)
        XCTAssertEqual(s.verdict, .fail(limit: "turnaround p99 (no steady state: assessment queue growing)"))
        // Poisson noise is not growth.
        XCTAssertTrue(judge.steady([window(n: 30, submits: 33), window(n: 30, submits: 28), window(n: 31, submits: 34), window(n: 30)]))
    }

    func testTheNextStepWaitsForTheStacksBacklog() {
        var st = CapacitySettings()
        st.cooldownS = 5
        var step = CapacityStep(index: 3, offeredRate: 12, verdict: .fail(limit: "turnaround p99"))
        step.backlog = 240
        step.assessmentsPerS = 20
        XCTAssertEqual(CapacityRun.cooldown(after: step, settings: st, drainRate: 10), 5 + 240 / 20 * 1.2, accuracy: 1e-9)
        XCTAssertEqual(CapacityRun.cooldown(after: step, settings: st, drainRate: 40), 5 + 240 / 40 * 1.2, accuracy: 1e-9)
        step.backlog = 1e6
        XCTAssertEqual(CapacityRun.cooldown(after: step, settings: st, drainRate: 40), 125, "bounded")
        step.verdict = .pass
        XCTAssertEqual(CapacityRun.cooldown(after: step, settings: st, drainRate: 40), 5, "in flight after a pass is work in service")
    }

    func testAStepWhereNoAssessmentFinishedNeverPasses() {
        let ws = (0..<4).map { _ in window(n: 0, submits: 40) }
        XCTAssertFalse(judge.steady(ws))
        XCTAssertEqual(judge.score(index: 1, rate: 24, measured: ws, steady: true, durationS: 14).verdict,
                       .fail(limit: "turnaround p99 (no assessment finished in the measured windows)"))
    }

    func testSLOsArePercentilesAndTheWorstBrokenOneIsNamed() {
        // Mean turnaround would be under 8 s; the p99 is not.
        var ws = [window(), window(), window(), window()]
        for _ in 0..<5 { ws[3].turnaround.record(30_000_000) }
        XCTAssertLessThan(ws.map { $0.turnaround.mean }.max()!, 8_000_000)
        let s = judge.score(index: 2, rate: 9, measured: ws, steady: true, durationS: 30)
        XCTAssertEqual(s.verdict, .fail(limit: "turnaround p99"))
        let errs = [window(errors: 30), window(errors: 30), window(), window()]
        XCTAssertEqual(judge.score(index: 3, rate: 9, measured: errs, steady: true, durationS: 30).verdict, .fail(limit: "error rate"))
    }

    func testALateGeneratorMakesTheStepInvalidWhateverTheStackDid() {
        let late = [window(lagMs: 300), window(lagMs: 300), window(lagMs: 300), window(lagMs: 300)]
        guard case .invalid(let why) = judge.score(index: 1, rate: 3, measured: late, steady: true, durationS: 30).verdict else {
            return XCTFail("a lag p99 of 300 ms over a 100 ms bound must be invalid")
        }
        XCTAssertTrue(why.contains("scheduling lag"), why)
        let busy = [window(cpu: 5.8), window(cpu: 5.8), window(cpu: 5.8), window(cpu: 5.8)]  // 1.93 cores of 2
        guard case .invalid(let cpu) = judge.score(index: 1, rate: 3, measured: busy, steady: true, durationS: 30).verdict else {
            return XCTFail("a saturated generator CPU must be invalid")
        }
        XCTAssertTrue(cpu.contains("CPU"), cpu)
    }

    func testEarlyFailureNeedsConsecutiveWindowsFarOverTheSLO() {
        XCTAssertNil(judge.earlyFailure([window(turnMs: 13_000), window(turnMs: 2000)]))
        XCTAssertEqual(judge.earlyFailure([window(turnMs: 2000), window(turnMs: 13_000), window(turnMs: 14_000)]), "turnaround p99")
        // Half again as many submits accepted as finished for four windows: far past the knee.
        XCTAssertEqual(judge.earlyFailure((0..<4).map { _ in window(n: 40, submits: 80) }), "turnaround p99 (assessment queue growing)")
        XCTAssertNil(judge.earlyFailure((0..<3).map { _ in window(n: 40, submits: 80) }), "not before steady_windows windows")
        var dropped = window()
        dropped.dropped = 1
        XCTAssertEqual(judge.earlyFailure([dropped]), "dropped arrivals")
    }
}
