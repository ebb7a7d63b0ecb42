import Foundation
import FleetCore
import FleetAudio
import Synchronization

/// The assessment queue and its pool of workers.
///
/// A submitted attempt waits in a FIFO queue until one of `workers` slots is free, then walks
/// queued → transcribing → assessing → terminal, each stage written to the database so that polls
/// see it. Service time is drawn from lognormal(median, sigma) with the stack's seed and split
/// 40/60 between the two stages. No thread sleeps: stage changes are Dispatch timers, and the
/// audio analysis runs on low-priority threads while the simulated service time elapses.
// @unchecked: the queue state is behind `state: Mutex`; `app` is a weak var assigned once in init.
final class AssessmentPipeline: @unchecked Sendable {
    private struct State {
        var waiting: [String] = []
        var head = 0
        var busy = 0
        var rng: SeededRandom
        var stopped = false
    }
    private let state: Mutex<State>
    private let settings: StackSettings
    /// Weak: the app owns the pipeline; timers still in flight after the stack stopped find nil.
    private weak var app: StackApp?
    private let timers = DispatchQueue(label: "fleet.stack.assessment.timers")
    /// The audio analysis, on threads below the request path's priority (`LowPriorityThreads`).
    private let cpu = LowPriorityThreads()
    /// Verdicts by verified sha256 (nil when `verdictCache` is off): bench users upload the same
    /// corpus clips again and again, and decoding one costs ~100 ms of CPU that the stack would
    /// otherwise take from the bench it shares the machine with.
    private let verdicts: AudioVerdictCache?

    init(settings: StackSettings, app: StackApp?) {
        self.settings = settings
        self.app = app
        state = Mutex(State(rng: SeededRandom(seed: settings.seed, stream: 0xA55E55)))
        verdicts = settings.verdictCache ? AudioVerdictCache() : nil
    }

    /// (hits, misses) of the verdict cache; (0, 0) when it is off.
    var verdictCacheCounts: (hits: Int, misses: Int) { verdicts?.counts ?? (0, 0) }

    /// The verdict for a job's audio: from the cache when it is on and the audio is still there.
    private func assess(_ job: StackApp.AssessmentJob, app: StackApp) -> AudioVerdict {
        // Audio deleted meanwhile reads as empty and fails as unreadable (never from the cache:
        // the digest describes the bytes that are gone).
        guard let bytes = app.audio.read(job.attemptID) else {
            return AudioAnalysis.assess(bytes: [], declaredContentType: job.contentType)
        }
        guard let verdicts else { return AudioAnalysis.assess(bytes: bytes, declaredContentType: job.contentType) }
        return verdicts.verdict(sha256: job.sha256, declaredContentType: job.contentType, bytes: bytes)
    }

    /// Attempts waiting for a worker (not counting those being processed).
    var queuedCount: Int { state.withLock { $0.waiting.count - $0.head } }

    /// Whether one more submit fits under `maxQueue`.
    var hasRoom: Bool { state.withLock { $0.waiting.count - $0.head < settings.maxQueue } }

    /// A fair Retry-After for a full queue: the time the backlog needs to drain, at least 1 s.
    var retryAfterSeconds: Int {
        let backlog = Double(queuedCount) * settings.assessmentMedianMs / Double(max(1, settings.workers)) / 1000
        return max(1, Int(backlog.rounded(.up)))
    }

    /// Queues an attempt whose submit has been recorded (called on the database queue).
    func enqueue(_ attemptID: String) {
        state.withLock { $0.waiting.append(attemptID) }
        startWork()
    }

    /// Stops starting new work; in-flight timers finish without touching the database.
    func stop() {
        state.withLock { $0.stopped = true }
        cpu.stop()
    }

    private var isStopped: Bool { state.withLock { $0.stopped } }

    /// Hands queued attempts to free workers.
    private func startWork() {
        while true {
            let next: (String, Double, Double)? = state.withLock { s in
                guard !s.stopped, s.busy < settings.workers, s.head < s.waiting.count else { return nil }
                let id = s.waiting[s.head]
                s.head += 1
                if s.head > 1024 && s.head * 2 > s.waiting.count { s.waiting.removeFirst(s.head); s.head = 0 }
                s.busy += 1
                let (t, a) = drawServiceTimes(&s.rng)
                return (id, t, a)
            }
            guard let (id, transcribeMs, assessMs) = next else { return }
            run(id, transcribeMs: transcribeMs, assessMs: assessMs)
        }
    }

    /// Service time of each stage (called under the lock, with its generator): per-stage settings
    /// when given, else one lognormal(assessmentMedianMs, assessmentSigma) draw split 40/60.
    private func drawServiceTimes(_ rng: inout SeededRandom) -> (Double, Double) {
        // Capped at one hour: a wide sigma must not make a timer overflow or stall an attempt forever.
        func draw(_ median: Double, _ sigma: Double) -> Double {
            min(3_600_000, sigma > 0 && median > 0 ? rng.lognormal(median: median, sigma: sigma) : median)
        }
        let total = draw(settings.assessmentMedianMs, settings.assessmentSigma)
        let transcribing = settings.transcribingMedianMs.map { draw($0, settings.transcribingSigma ?? settings.assessmentSigma) } ?? total * 0.4
        let assessing = settings.assessingMedianMs.map { draw($0, settings.assessingSigma ?? settings.assessmentSigma) } ?? total * 0.6
        return (transcribing, assessing)
    }

    private func finished() {
        state.withLock { $0.busy -= 1 }
        startWork()
    }

    private func run(_ id: String, transcribeMs: Double, assessMs: Double) {
        let start = DispatchTime.now()
        guard let app else { return }
        app.dbQueue.async { [self] in
            guard !isStopped, let job = app.beginTranscribing(id) else { return finished() }
            cpu.async { [self] in
                let verdict = assess(job, app: app)
                timers.asyncAfter(deadline: start + .microseconds(Int(transcribeMs * 1000))) { [self] in
                    app.dbQueue.async { [self] in
                        guard !isStopped else { return finished() }
                        app.markAssessing(id)
                        timers.asyncAfter(deadline: start + .microseconds(Int((transcribeMs + assessMs) * 1000))) { [self] in
                            app.dbQueue.async { [self] in
                                if !isStopped { app.finishAssessment(id, verdict: verdict) }
                                finished()
                            }
                        }
                    }
                }
            }
        }
    }
}
