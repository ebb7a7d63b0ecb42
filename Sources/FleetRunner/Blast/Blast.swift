import Dispatch
import FleetCore
import FleetHTTP
import FleetMetrics
import Foundation
import Synchronization

/// A raw load mode like wrk/wrk2: one GET repeated over N connections for D seconds, through the
/// same `HTTPEngine` and the same `Recorder` as the fleet, so its figures are the fleet's own
/// per-request overhead rather than another tool's.
///
/// Closed loop (no rate): each connection sends its next request when the previous completes.
/// With a rate, each connection follows a fixed schedule (rate / connections per second) and
/// every latency is measured from when the request *should* have been sent (wrk2's correction),
/// so a stalled server or generator shows up in the percentiles instead of thinning the load.
/// A recording replayed as recorded (`--as-recorded`) keeps its own timing (`ChainReplayDriver`).
public enum Blast {
    /// Runs the blast to completion (bounded by the duration plus a short drain) and reports.
    public static func run(_ options: BlastOptions) throws -> BlastReport {
        try options.validate()
        var config = HTTPEngine.Configuration()
        config.ioThreads = options.ioThreads
        // Like wrk's -c: never more connections than asked for (the engine splits the cap).
        config.maxConnectionsPerHost = options.connections
        let engine = try HTTPEngine(configuration: config)
        defer { engine.shutdown() }

        let timed = try options.replayFile.map { try HTTPEngine.loadTimedRecording($0) } ?? []
        let replay = timed.map(\.request)
        try options.validateReplay(timed)
        let start = MonotonicClock.now()
        let recorder = Recorder(startNanos: start)
        let tally = BlastTally(recorder: recorder, endpoint: options.endpoint)
        let driver: any BlastLoad = options.asRecorded
            ? ChainReplayDriver(engine: engine, tally: tally, recording: timed, durationSeconds: options.durationSeconds, start: start)
            : BlastDriver(engine: engine, tally: tally, options: options, replay: replay, start: start)
        let cpuBefore = ProcessStats.cpuSeconds()
        driver.launch()
        let deadline = start + UInt64(options.durationSeconds * 1e9)
        while MonotonicClock.now() < deadline, !driver.loops.allEnded {
            let left = Double(deadline - MonotonicClock.now()) / 1e9
            Thread.sleep(forTimeInterval: min(max(left, 0.001), 0.5))
        }
        let end = MonotonicClock.now()
        // Whatever is still in flight ends as aborted (not counted), which bounds the drain.
        engine.shutdown()
        driver.loops.wait(timeoutSeconds: 5)
        let cpu = ProcessStats.cpuSeconds() - cpuBefore

        let meta = RunMetadata(runId: "blast", profile: "blast", seed: 0, target: options.url,
                               startedAt: RFC3339.format(millis: WallClock.nowMillis()),
                               plannedDurationSeconds: options.durationSeconds,
                               actualDurationSeconds: Double(end - start) / 1e9)
        let results = recorder.snapshot(meta)
        let endpoint = results.endpoint(options.endpoint)
        let counts = tally.counts()
        return BlastReport(options: options, elapsedSeconds: Double(end - start) / 1e9,
                           latencyMicros: endpoint?.latency.corrected ?? Histogram(),
                           requests: counts.responses, non2xx: counts.non2xx, errors: counts.errors,
                           cpuSeconds: cpu)
    }
}

/// A blast's send loops: started at once, each ending itself (`loops.end()`) when it stops.
protocol BlastLoad: Sendable {
    func launch()
    var loops: LoopsLeft { get }
}

/// How many of a blast's send loops are still going; the last to end releases `wait`.
final class LoopsLeft: Sendable {
    private let left: Mutex<Int>
    private let idle = DispatchSemaphore(value: 0)

    init(_ count: Int) { left = Mutex(count) }

    /// Every loop has ended (a closed or paced blast's only at its deadline; a replay's also
    /// when its recording runs out).
    var allEnded: Bool { left.withLock { $0 <= 0 } }

    func end() {
        if left.withLock({ n -> Bool in n -= 1; return n == 0 }) { idle.signal() }
    }

    /// Waits (bounded) until every loop has ended.
    func wait(timeoutSeconds: Double) {
        guard !allEnded else { return }
        _ = idle.wait(timeout: .now() + timeoutSeconds)
    }
}

/// A blast's counts and its recorder: every answer within the interval is counted and recorded
/// here, by whichever send loop got it. The few counters sit behind one lock, uncontended with
/// one I/O thread.
final class BlastTally: Sendable {
    private struct Counts {
        /// Responses (any status) within the interval; transport errors are counted apart, as wrk does.
        var responses: Int64 = 0
        var non2xx: Int64 = 0
        var errors: [HTTPErrorKind: Int64] = [:]
    }
    private let recorder: Recorder
    private let endpoint: String
    private let state = Mutex(Counts())

    init(recorder: Recorder, endpoint: String) {
        self.recorder = recorder
        self.endpoint = endpoint
    }

    func record(_ result: Result<HTTPResponse, HTTPError>, intended: UInt64, actual: UInt64, end: UInt64) {
        switch result {
        case .success(let r):
            state.withLock { s in
                s.responses += 1
                if r.status < 200 || r.status > 299 { s.non2xx += 1 }
            }
            recorder.recordRequest(endpoint, intended: intended, actual: actual, end: end, status: r.status,
                                   errorCode: nil, message: nil, breakdown: r.timings)
        case .failure(let e):
            state.withLock { $0.errors[e.kind, default: 0] += 1 }
            recorder.recordRequest(endpoint, intended: intended, actual: actual, end: end, status: nil,
                                   errorCode: e.kind.rawValue, message: e.message, breakdown: nil)
        }
    }

    func counts() -> (responses: Int64, non2xx: Int64, errors: [HTTPErrorKind: Int64]) {
        state.withLock { ($0.responses, $0.non2xx, $0.errors) }
    }
}

/// The per-connection send loops of one blast.
///
/// Completions run on the engine's I/O thread (`send(queue: nil)`), and the next request of a
/// connection is sent from there: the loop starts it in the same turn, with no queue hop and no
/// wake-up, as wrk's own loop does. Paced sends wait on the loop's timers (`Pause.at`).
final class BlastDriver: BlastLoad {
    private struct State {
        var cursor: [Int]
    }

    private let engine: HTTPEngine
    private let tally: BlastTally
    /// The request each connection repeats, or (`--replay`) the recorded sequence each one walks
    /// in order, connection i starting at i/connections of the way through.
    private let requests: [HTTPRequest]
    private let state: Mutex<State>
    private let connections: Int
    private let deadline: UInt64
    private let start: UInt64
    /// Nanoseconds between sends of one connection under a rate; nil = closed loop.
    private let interval: UInt64?
    let loops: LoopsLeft

    init(engine: HTTPEngine, tally: BlastTally, options: BlastOptions, replay: [HTTPRequest] = [], start: UInt64) {
        self.engine = engine
        self.tally = tally
        self.requests = replay.isEmpty ? [HTTPRequest(method: "GET", url: options.url, timeout: options.timeoutSeconds)] : replay
        self.state = Mutex(State(cursor: (0..<options.connections).map { $0 * replay.count / options.connections }))
        self.connections = options.connections
        self.loops = LoopsLeft(options.connections)
        self.start = start
        self.deadline = start + UInt64(options.durationSeconds * 1e9)
        self.interval = options.rate.map { UInt64(Double(options.connections) / $0 * 1e9) }
    }

    /// Starts every connection's loop; under a rate their first sends are staggered evenly.
    func launch() {
        for i in 0..<connections {
            if let interval {
                schedule(intended: start + interval * UInt64(i) / UInt64(connections), connection: i)
            } else {
                send(intended: MonotonicClock.now(), connection: i)
            }
        }
    }

    // MARK: On the I/O thread (and the caller's, for the first sends).

    private func send(intended: UInt64, connection: Int) {
        let actual = MonotonicClock.now()
        guard actual < deadline else { return end() }
        var request = requests[0]
        if requests.count > 1 {
            request = state.withLock { s in
                defer { s.cursor[connection] = (s.cursor[connection] + 1) % requests.count }
                return requests[s.cursor[connection]]
            }
        }
        engine.send(request, queue: nil) { [self] result in
            handle(result, intended: intended, actual: actual, connection: connection)
        }
    }

    private func handle(_ result: Result<HTTPResponse, HTTPError>, intended: UInt64, actual: UInt64, connection: Int) {
        let now = MonotonicClock.now()
        guard now <= deadline else { return end() }
        tally.record(result, intended: intended, actual: actual, end: now)
        if let interval {
            schedule(intended: intended + interval, connection: connection)
        } else {
            send(intended: now, connection: connection)
        }
    }

    /// Sends at `intended`, or at once when the schedule has already passed (a late response).
    private func schedule(intended: UInt64, connection: Int) {
        let now = MonotonicClock.now()
        if intended <= now { return send(intended: intended, connection: connection) }
        guard intended < deadline else { return end() }
        Pause.at(intended) { [self] in send(intended: intended, connection: connection) }
    }

    /// One connection's loop is over (the deadline passed).
    private func end() { loops.end() }
}
