import FleetCore
import Foundation

/// Thread-safe sink for every sample of a run, per metric × 1 s window and for the whole run.
///
/// All durations are microseconds; instants are `MonotonicClock.now()` nanoseconds. A sample
/// belongs to the window of its end (for latencies) or of its actual start (for scheduling lag).
/// Latencies are kept twice: *corrected* from the intended start, so that a generator that fell
/// behind shows the delay instead of hiding it (coordinated omission), and *uncorrected* from
/// the actual start. Every latency sample also feeds `scheduling_lag` (actual − intended).
///
/// One lock guards all state (`@unchecked Sendable` is sound because every stored var is read and
/// written only inside `lock`); recording does a few dictionary lookups and histogram increments,
/// with no allocation once a metric's slot and current window exist. Past windows are compacted
/// to the sparse form once a second, so a long run costs memory per distinct value, not per range.
public final class Recorder: @unchecked Sendable {
    public let startNanos: UInt64
    public let windowNanos: UInt64

    private let lock = NSLock()
    private var metrics: [String: MetricSlot] = [:]
    private var endpoints: [String: EndpointSlot] = [:]
    private var errors: [ErrorKey: ErrorSlot] = [:]
    private var journeys: [JourneyKey: JourneySlot] = [:]
    private var counters: [String: Int64] = [:]
    private var health: [Int: HealthSample] = [:]
    private var latestWindow = 0
    private var requests: Int64 = 0
    private var requestErrors: Int64 = 0
    private var journeysStarted: Int64 = 0, journeysCompleted: Int64 = 0, journeysFailed: Int64 = 0
    private let lagSlot = MetricSlot(name: MetricName.schedulingLag.rawValue)

    public init(startNanos: UInt64 = MonotonicClock.now(), windowNanos: UInt64 = 1_000_000_000) {
        precondition(windowNanos > 0, "Recorder: windowNanos must be > 0")
        self.startNanos = startNanos
        self.windowNanos = windowNanos
        metrics[MetricName.schedulingLag.rawValue] = lagSlot
    }

    // MARK: Recording

    /// Journey metrics (assessment_turnaround, settlement, …): corrected = end−intended, uncorrected = end−actual.
    public func recordLatency(_ metric: MetricName, intended: UInt64, actual: UInt64, end: UInt64, failed: Bool = false) {
        let corrected = Self.micros(from: intended, to: end), uncorrected = Self.micros(from: actual, to: end)
        let w = window(of: end), lagWindow = window(of: actual)
        lock.lock(); defer { lock.unlock() }
        advance(to: Swift.max(w, lagWindow))
        slot(metric.rawValue).record(corrected: corrected, uncorrected: uncorrected, failed: failed, window: w)
        recordLag(intended: intended, actual: actual, window: lagWindow)
    }

    /// A duration measured elsewhere (assessment_turnaround_server from the stack's timestamps).
    public func recordValue(_ metric: MetricName, micros: Int64, at: UInt64) {
        let w = window(of: at)
        lock.lock(); defer { lock.unlock() }
        advance(to: w)
        slot(metric.rawValue).record(corrected: micros, uncorrected: micros, failed: false, window: w)
    }

    /// One HTTP request; endpoint = "METHOD /template" ("GET /attempts/{id}"); status nil = transport
    /// error; errorCode = API error code ("stage_precondition") or transport kind ("timeout").
    /// A request is an error when it got no response or a status >= 400, unless `isError` says
    /// otherwise (a 404 the journey expects, like polling a plan that is not ready, is not an error:
    /// it still shows in the endpoint's status counts but not in error rates or the error table).
    public func recordRequest(_ endpoint: String, intended: UInt64, actual: UInt64, end: UInt64,
                              status: Int?, errorCode: String?, message: String?, breakdown: RequestBreakdown?,
                              isError: Bool? = nil) {
        let corrected = Self.micros(from: intended, to: end), uncorrected = Self.micros(from: actual, to: end)
        let w = window(of: end), lagWindow = window(of: actual)
        let isError = isError ?? status.map { $0 >= 400 } ?? true
        lock.lock(); defer { lock.unlock() }
        advance(to: Swift.max(w, lagWindow))
        let e: EndpointSlot
        if let existing = endpoints[endpoint] { e = existing } else { e = EndpointSlot(name: endpoint); endpoints[endpoint] = e }
        e.latency.record(corrected: corrected, uncorrected: uncorrected, failed: isError, window: w)
        e.statuses[status ?? -1, default: 0] += 1
        if let code = errorCode { e.errorCodes[code, default: 0] += 1 }
        if let b = breakdown {
            e.dns.record(b.dnsMicros); e.connect.record(b.connectMicros); e.tls.record(b.tlsMicros)
            e.firstByte.record(b.firstByteMicros); e.total.record(b.totalMicros)
        }
        requests += 1
        if isError {
            requestErrors += 1
            let key = ErrorKey(endpoint: endpoint, status: status, code: errorCode)
            let offset = end &- Swift.min(end, startNanos)
            let row: ErrorSlot
            if let existing = errors[key] { row = existing } else {
                row = ErrorSlot(firstOffsetNanos: offset, sampleMessage: message)
                errors[key] = row
            }
            // Threads finish out of order: the first occurrence is the earliest end, not the first call.
            row.firstOffsetNanos = Swift.min(row.firstOffsetNanos, offset)
            row.count += 1
            row.windows[w, default: 0] += 1
            if row.sampleMessage == nil { row.sampleMessage = message }
        }
        recordLag(intended: intended, actual: actual, window: lagWindow)
    }

    public func journeyStarted(_ journey: String, cohort: String) {
        lock.lock(); defer { lock.unlock() }
        journeySlot(journey, cohort).started += 1
        journeysStarted += 1
    }

    public func journeyReached(_ journey: String, cohort: String, step: String) {
        lock.lock(); defer { lock.unlock() }
        journeySlot(journey, cohort).reach(step)
    }

    /// Ends a journey at `step`; a completed journey's duration (end − intended) joins its histogram.
    public func journeyEnded(_ journey: String, cohort: String, outcome: JourneyOutcome, step: String,
                             errorCode: String?, intended: UInt64, end: UInt64) {
        let micros = Self.micros(from: intended, to: end)
        lock.lock(); defer { lock.unlock() }
        let j = journeySlot(journey, cohort)
        switch outcome {
        case .completed:
            j.completed += 1
            j.duration.record(micros)
            journeysCompleted += 1
        case .abandoned:
            j.abandoned += 1
            j.exits[JourneyExitKey(outcome: outcome, step: step, code: errorCode), default: 0] += 1
        case .failed:
            j.failed += 1
            j.exits[JourneyExitKey(outcome: outcome, step: step, code: errorCode), default: 0] += 1
            journeysFailed += 1
        }
    }

    /// Adds `delta` to a named counter (`CounterKey.key`: dropped_arrivals, retries, …).
    public func count(_ counter: String, _ delta: Int64 = 1) {
        lock.lock(); defer { lock.unlock() }
        counters[counter, default: 0] += delta
    }

    /// The generator's health now; one sample per window is kept (the latest).
    public func healthSample(activeUsers: Int, inFlight: Int, cpuSeconds: Double, rssBytes: Int64) {
        let w = window(of: MonotonicClock.now())
        lock.lock(); defer { lock.unlock() }
        health[w] = HealthSample(window: w, activeUsers: activeUsers, inFlight: inFlight,
                                 cpuSeconds: cpuSeconds, rssBytes: rssBytes)
    }

    // MARK: Reading

    /// Everything so far, with `meta` as the header; may be called while recording (live progress).
    public func snapshot(_ meta: RunMetadata) -> RunResults {
        lock.lock(); defer { lock.unlock() }
        var r = RunResults(meta: meta, windowNanos: windowNanos)
        r.metrics = metrics.values.filter { $0.corrected.count > 0 }.map { $0.result() }.sorted { $0.name < $1.name }
        r.endpoints = endpoints.values.map { $0.result() }.sorted { $0.name < $1.name }
        r.errors = errors.map { key, row in
            ErrorRow(endpoint: key.endpoint, status: key.status, code: key.code, count: row.count,
                     firstOffsetNanos: row.firstOffsetNanos, sampleMessage: row.sampleMessage,
                     windows: row.windows.map { WindowCount(window: $0.key, count: $0.value) }.sorted { $0.window < $1.window })
        }.sorted { $0.sortKey < $1.sortKey }
        r.journeys = journeys.values.map { $0.result() }.sorted { $0.sortKey < $1.sortKey }
        r.counters = counters
        r.health = health.values.sorted { $0.window < $1.window }
        return r
    }

    /// Cheap running totals for a progress line.
    public func liveTotals() -> LiveTotals {
        let now = MonotonicClock.now()
        lock.lock(); defer { lock.unlock() }
        let turnaround = metrics[MetricName.assessmentTurnaround.rawValue]?.corrected
        return LiveTotals(elapsedNanos: now &- Swift.min(now, startNanos), requests: requests, errors: requestErrors,
                          turnaroundCount: turnaround?.count ?? 0,
                          turnaroundP99Micros: turnaround?.value(atPercentile: 99) ?? 0,
                          journeysStarted: journeysStarted, journeysCompleted: journeysCompleted,
                          journeysFailed: journeysFailed)
    }

    /// The whole-run totals so far without the per-window detail: what a metrics scrape shows.
    /// Copies histograms (copy on write) under the lock; windows are not touched.
    public func liveView() -> LiveView {
        let now = MonotonicClock.now()
        lock.lock(); defer { lock.unlock() }
        return LiveView(
            elapsedNanos: now &- Swift.min(now, startNanos),
            metrics: metrics.values.map { ($0.name, $0.corrected) }.sorted { $0.0 < $1.0 },
            requests: endpoints.values.flatMap { e in e.statuses.map { (e.name, $0.key < 0 ? "transport" : String($0.key), $0.value) } }
                .sorted { ($0.0, $0.1) < ($1.0, $1.1) },
            journeys: journeys.values.map { j in (j.journey, j.cohort, j.started, j.completed, j.abandoned, j.failed) }
                .sorted { ($0.0, $0.1) < ($1.0, $1.1) },
            counters: counters.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
    }

    // MARK: Internals (call with the lock held)

    @inline(__always)
    private static func micros(from start: UInt64, to end: UInt64) -> Int64 {
        // A negative interval (clock misuse) becomes a clamped 0 in the histogram, not a trap.
        Int64(bitPattern: end &- start) / 1000
    }

    @inline(__always)
    private func window(of t: UInt64) -> Int {
        t <= startNanos ? 0 : Int((t - startNanos) / windowNanos)
    }

    @inline(__always)
    private func slot(_ name: String) -> MetricSlot {
        if let s = metrics[name] { return s }
        let s = MetricSlot(name: name)
        metrics[name] = s
        return s
    }

    private func journeySlot(_ journey: String, _ cohort: String) -> JourneySlot {
        let key = JourneyKey(journey: journey, cohort: cohort)
        if let s = journeys[key] { return s }
        let s = JourneySlot(journey: journey, cohort: cohort)
        journeys[key] = s
        return s
    }

    @inline(__always)
    private func recordLag(intended: UInt64, actual: UInt64, window: Int) {
        let lag = Self.micros(from: intended, to: actual)
        lagSlot.record(corrected: lag, uncorrected: lag, failed: false, window: window)
    }

    /// When time moves into a new window, compacts every window older than the previous one.
    @inline(__always)
    private func advance(to window: Int) {
        guard window > latestWindow else { return }
        latestWindow = window
        let keepFrom = window - 1  // the previous window still receives late samples from slow threads
        for s in metrics.values { s.compactWindows(before: keepFrom) }
        for e in endpoints.values { e.latency.compactWindows(before: keepFrom) }
    }
}
