import Foundation
import FleetCore
import FleetAudio

/// The assessment queue and its pool of workers.
///
/// A submitted attempt waits in a FIFO queue until one of `workers` slots is free, then walks
/// queued → transcribing → assessing → terminal, each stage written to the database so that polls
/// see it. Service time is drawn from lognormal(median, sigma) with the stack's seed and split
/// 40/60 between the two stages. No thread sleeps: stage changes are Dispatch timers, and the
/// audio analysis runs on a concurrent queue while the simulated service time elapses.
final class AssessmentPipeline: @unchecked Sendable {
    // @unchecked: `waiting`, `head`, `busy`, `rng` and `stopped` are guarded by `lock`; the rest is immutable.
    private let lock = Lock()
    private var waiting: [String] = []
    private var head = 0
    private var busy = 0
    private var rng: SeededRandom
    private var stopped = false
    private let settings: StackSettings
    /// Weak: the app owns the pipeline; timers still in flight after the stack stopped find nil.
    private weak var app: StackApp?
    private let timers = DispatchQueue(label: "fleet.stack.assessment.timers")
    private let cpu = DispatchQueue(label: "fleet.stack.assessment.cpu", attributes: .concurrent)
    /// Verdicts by verified sha256 (nil when `verdictCache` is off): bench users upload the same
    /// corpus clips again and again, and decoding one costs ~100 ms of CPU that the stack would
    /// otherwise take from the bench it shares the machine with.
    private let verdicts: AudioVerdictCache?

    init(settings: StackSettings, app: StackApp?) {
        self.settings = settings
        self.app = app
        rng = SeededRandom(seed: settings.seed, stream: 0xA55E55)
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
    var queuedCount: Int { lock.withLock { waiting.count - head } }

    /// Whether one more submit fits under `maxQueue`.
    var hasRoom: Bool { lock.withLock { waiting.count - head < settings.maxQueue } }

    /// A fair Retry-After for a full queue: the time the backlog needs to drain, at least 1 s.
    var retryAfterSeconds: Int {
        let backlog = Double(queuedCount) * settings.assessmentMedianMs / Double(max(1, settings.workers)) / 1000
        return max(1, Int(backlog.rounded(.up)))
    }

    /// Queues an attempt whose submit has been recorded (called on the database queue).
    func enqueue(_ attemptID: String) {
        lock.withLock { waiting.append(attemptID) }
        startWork()
    }

    /// Stops starting new work; in-flight timers finish without touching the database.
    func stop() { lock.withLock { stopped = true } }

    private var isStopped: Bool { lock.withLock { stopped } }

    /// Hands queued attempts to free workers.
    private func startWork() {
        while true {
            let next: (String, Double, Double)? = lock.withLock {
                guard !stopped, busy < settings.workers, head < waiting.count else { return nil }
                let id = waiting[head]
                head += 1
                if head > 1024 && head * 2 > waiting.count { waiting.removeFirst(head); head = 0 }
                busy += 1
                let (t, a) = drawServiceTimes()
                return (id, t, a)
            }
            guard let (id, transcribeMs, assessMs) = next else { return }
            run(id, transcribeMs: transcribeMs, assessMs: assessMs)
        }
    }

    /// Service time of each stage (called under `lock`): per-stage settings when given, else one
    /// lognormal(assessmentMedianMs, assessmentSigma) draw split 40/60.
    private func drawServiceTimes() -> (Double, Double) {
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
        lock.withLock { busy -= 1 }
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
