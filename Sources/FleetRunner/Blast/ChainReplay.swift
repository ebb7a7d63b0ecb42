import FleetCore
import FleetHTTP

/// `fleet blast --replay FILE --as-recorded`: the recorded requests through the bare engine with
/// the timing they were sent with. Each chain of the recording (one sending task: a user's walk)
/// is replayed in order, each request sent as long after what it followed — the chain's previous
/// answer, its previous send, or the start — as it was recorded, when the sender paused in that
/// gap (a think, a poll interval); a gap it spent on its own work (decoding, checks) is sent
/// through at once, as the bare engine has no such work. The replay goes through the
/// recording once (a chain that reaches its end is over: chains that ran one after another in the
/// recording, such as the users a slot walks in turn, would otherwise run at once); it ends at the
/// duration or with the last chain, whichever comes first.
///
/// Why: the journeys wait for answers and think, so their requests come in bursts along each
/// user's chain; a flat-out replay amortizes the engine's fixed costs (wake-ups, timers) over ~8 ×
/// more requests a second, and an evenly paced one wakes for every request. Replayed as recorded,
/// the engine does the journeys' requests at the journeys' times, so the CPU difference per request
/// is what the journey layer costs (bench/overhead.sh).
///
/// A chain's next request is triggered by exactly one event (the send or the answer it followed;
/// on the I/O thread but for each chain's first), so a chain ends exactly once: when that event
/// finds the duration over, or it was the chain's last request's answer.
final class ChainReplayDriver: BlastLoad {
    struct Step: Sendable {
        let request: HTTPRequest
        let after: RecordedRequest.After
        let gap: UInt64
    }

    private let engine: HTTPEngine
    private let tally: BlastTally
    private let chains: [[Step]]
    private let start: UInt64
    private let deadline: UInt64
    let loops: LoopsLeft

    /// `recording` must carry timing on every request (`BlastOptions.validateReplay` says so).
    init(engine: HTTPEngine, tally: BlastTally, recording: [RecordedRequest], durationSeconds: Double, start: UInt64) {
        var byChain: [Int: [Step]] = [:]
        var order: [Int] = []
        for r in recording {
            guard let t = r.timing else { continue }
            if byChain[t.chain] == nil { order.append(t.chain) }
            // A gap the sender spent working, not pausing, is no wait for the bare engine.
            let gap = t.after == .start || t.waited ? t.gap : 0
            byChain[t.chain, default: []].append(Step(request: r.request, after: t.after, gap: UInt64(gap * 1e9)))
        }
        self.engine = engine
        self.tally = tally
        let chains = order.map { byChain[$0]! }
        self.chains = chains
        self.start = start
        self.deadline = start + UInt64(durationSeconds * 1e9)
        self.loops = LoopsLeft(chains.count)
    }

    func launch() {
        for (c, steps) in chains.enumerated() {
            // A chain's first request keeps its offset from the recording's first one.
            let first = steps[0]
            schedule(at: start + (first.after == .start ? first.gap : 0), chain: c, step: 0)
        }
    }

    // MARK: On the I/O thread (and the caller's, for the first schedules).

    private func schedule(at intended: UInt64, chain: Int, step: Int) {
        if intended <= MonotonicClock.now() { return send(intended: intended, chain: chain, step: step) }
        guard intended < deadline else { return end() }
        Pause.at(intended) { [self] in send(intended: intended, chain: chain, step: step) }
    }

    private func send(intended: UInt64, chain: Int, step: Int) {
        let actual = MonotonicClock.now()
        guard actual < deadline else { return end() }
        let steps = chains[chain]
        let next = step + 1
        let last = next == steps.count
        let followsSend = !last && steps[next].after == .send
        engine.send(steps[step].request, queue: nil) { [self] result in
            let now = MonotonicClock.now()
            if now <= deadline { tally.record(result, intended: intended, actual: actual, end: now) }
            guard !followsSend else { return }
            guard now <= deadline, !last else { return end() }
            schedule(at: now + steps[next].gap, chain: chain, step: next)
        }
        if followsSend { schedule(at: actual + steps[next].gap, chain: chain, step: next) }
    }

    /// One chain is over (its last answer came, or the duration passed).
    private func end() { loops.end() }
}
