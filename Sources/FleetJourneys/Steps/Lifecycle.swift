import FleetClient
import FleetCore
import FleetHTTP
import Synchronization

/// The recording a killed app left half-written: which session and round it belonged to.
public struct PartialRecording: Sendable, Equatable {
    public var sessionId: String
    public var round: Int
}

/// Holds the foreground task of an app so that a timer can kill it, once (the user's task arms
/// it, a timer task fires it; all of it behind `state`).
final class KillSwitch: Sendable {
    private struct State {
        var task: Task<Result<Void, JourneyStop>, Never>?
        var timer: Task<Void, Never>?
        var armed = false
        var killed = false
    }
    private let state = Mutex(State())

    func hold(_ t: Task<Result<Void, JourneyStop>, Never>) { state.withLock { $0.task = t } }

    /// Starts the countdown to the kill the first time it is called.
    func arm(afterMs ms: Double) {
        state.withLock { s in
            guard !s.armed else { return }
            s.armed = true
            s.timer = Task { [self] in
                guard await Pause.until(MonotonicClock.now() &+ UInt64(max(0, ms) * 1e6)) else { return }
                fire()
            }
        }
    }

    private func fire() {
        state.withLock { s in
            s.killed = true
            s.task?.cancel()
        }
    }

    /// Stops a countdown that has not fired; reports whether the kill happened.
    func disarm() -> Bool {
        state.withLock { s in
            s.timer?.cancel()
            return s.killed
        }
    }
}

/// App death and relaunch (flow 4): the journey body runs as the app's foreground task; a kill
/// cancels it, which drops its in-flight transfers (`APIClient.exchange` cancels on task
/// cancellation) and loses its memory; only `Device` survives into the relaunch.
extension VirtualUser {
    /// Runs `body` as the app's life and kills it `withinMs` after the user reaches `killStep`
    /// (0 kills at the step's first instant; more lands inside its requests or pauses).
    /// Returns true when the app was killed; a journey that ended otherwise rethrows its stop.
    public func runKillable(killAt killStep: String, withinMs: Double,
                            _ body: @escaping @Sendable (VirtualUser) async throws(JourneyStop) -> Void) async throws(JourneyStop) -> Bool {
        let killSwitch = KillSwitch()
        let delay = random.unit() * withinMs
        onReach = { step in if step == killStep { killSwitch.arm(afterMs: delay) } }
        let app = Task { [self] () -> Result<Void, JourneyStop> in
            do throws(JourneyStop) {
                try await body(self)
                return .success(())
            } catch {
                return .failure(error)
            }
        }
        killSwitch.hold(app)
        // The caller's own cancellation (the run stopping) must reach the app too.
        let result = await withTaskCancellationHandler { await app.value } onCancel: { app.cancel() }
        onReach = nil
        let killed = killSwitch.disarm()
        if Task.isCancelled { throw .interrupted(step: step) }
        switch result {
        case .success:
            return false
        case .failure(.interrupted) where killed:
            world.recorder.count(.appKills)
            return true
        case let .failure(stop):
            throw stop
        }
    }

    /// The app comes back after a kill: relaunch delay, sign-in from the keychain, upload queue
    /// drained, partial recording noticed, an unseen settlement replayed. Returns the settlement
    /// when the relaunch replayed one (the session is then finished).
    @inline(never)  // async steps are not inlined: see VirtualUser (frames)
    public func relaunch() async throws(JourneyStop) -> SettlementInfo? {
        reach("killed")
        try await pause(ms: world.behaviour.relaunchDelay.sample(&random) * world.behaviour.timeScale)
        reach("relaunch")
        try await launch()
        try await drainUploadQueue()
        if device.partialRecording != nil {
            // The record screen offers the interrupted file; the fleet re-records instead (as after
            // "recording couldn't be recovered"), which the stage routing does by itself.
            reach("interrupted_recording")
            device.partialRecording = nil
        }
        if let sid = device.pendingSettlement {
            reach("replay_settlement")
            let session = try expect(await client.session(sid, credentials, intended: nextIntended, random: &random))
            if session.stage == "completed" {
                return try await settle(session: session, since: MonotonicClock.now(), replay: true)
            }
            device.pendingSettlement = nil
        }
        return nil
    }

    /// Delivers every recording the app persisted before it died: `POST attempts` again with the
    /// recording's own key (the same attempt, a fresh upload URL), `PUT`, `POST submit`. A
    /// recording the stack no longer wants (its round moved on: 409, or 404) is dropped.
    @inline(never)
    public func drainUploadQueue() async throws(JourneyStop) {
        guard !device.uploadQueue.isEmpty else { return }
        reach("upload_queue")
        while let item = device.uploadQueue.first {
            let rec = item.recording
            let ticketResult = await client.createAttempt(
                session: item.sessionId, round: item.round, sha256: rec.sha256, sizeBytes: rec.sizeBytes, contentType: rec.contentType,
                durationMs: min(rec.durationMs, 90_000), key: item.idempotencyKey, credentials, intended: nextIntended, random: &random)
            switch ticketResult {
            case let .success(ticket):
                nextIntended = MonotonicClock.now()
                if !item.uploaded {
                    _ = try expect(await client.upload(url: ticket.url, method: ticket.method, headers: ticket.httpHeaders,
                                                       body: rec.body, intended: nextIntended, random: &random))
                }
                switch await client.submit(attempt: ticket.attemptId, credentials, intended: nextIntended, random: &random) {
                case .success: nextIntended = MonotonicClock.now()
                case let .failure(e) where e.status == 409 || e.status == 404: _ = e
                case let .failure(e): throw stop(for: e)
                }
            case let .failure(e) where e.status == 409 || e.status == 404:
                _ = e
            case let .failure(e):
                throw stop(for: e)
            }
            device.uploadQueue.removeFirst()
        }
    }
}
