import FleetCore
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Thread-safe sink for every sample of a run, per metric × 1 s window and for the whole run.
///
/// All durations are microseconds; instants are `MonotonicClock.now()` nanoseconds. A sample
/// belongs to the window of its end (for latencies) or of its actual start (for scheduling lag).
/// Latencies are kept twice: *corrected* from the intended start, so that a generator that fell
/// behind shows the delay instead of hiding it (coordinated omission), and *uncorrected* from
/// the actual start. Every latency sample also feeds `scheduling_lag` (actual − intended).
///
/// Latencies and request counts go into the recording thread's shard (`RecorderShard`, one
/// Mutex each), so threads recording at once rarely meet on a lock; recording does a few
/// dictionary lookups and histogram increments, with no allocation once a metric's slot and
/// current window exist. When time moves into a new window, every window older than the previous
/// one is folded out of the shards into `closed`, in the sparse form, so a long run costs memory
/// per distinct value, not per range or per shard. Reads add the shards up: histogram merging is
/// exact, so the results are the same as one lock would give. The rarer tables whose content
/// depends on call order (an error row's first message, a journey's step order) and the counters
/// stay in one place, `events`.
public final class Recorder: Sendable {
    public let startNanos: UInt64
    public let windowNanos: UInt64

    private let shards: [RecorderShard]
    /// Windows folded out of the shards. Held while folding and while a snapshot reads the
    /// shards, so that a window in transit is never missed or counted twice (order: `closed`,
    /// then one shard at a time; recording holds one shard lock and nothing else).
    private let closed = Mutex(ClosedWindows())
    private let events = Mutex(RecorderEvents())
    /// The newest window any sample has reached.
    private let latestWindow = Atomic<Int>(0)

    public init(startNanos: UInt64 = MonotonicClock.now(), windowNanos: UInt64 = 1_000_000_000) {
        precondition(windowNanos > 0, "Recorder: windowNanos must be > 0")
        self.startNanos = startNanos
        self.windowNanos = windowNanos
        // A few shards per core: recording threads are the cooperative pool's and the engine's.
        let cores = ProcessInfo.processInfo.activeProcessorCount
        var n = 1
        while n < 2 * cores && n < 16 { n *= 2 }
        shards = (0..<n).map { _ in RecorderShard() }
    }

    // MARK: Recording

    /// Journey metrics (assessment_turnaround, settlement, …): corrected = end−intended, uncorrected = end−actual.
    public func recordLatency(_ metric: MetricName, intended: UInt64, actual: UInt64, end: UInt64, failed: Bool = false) {
        let corrected = Self.micros(from: intended, to: end), uncorrected = Self.micros(from: actual, to: end)
        let w = window(of: end), lagWindow = window(of: actual)
        advance(to: Swift.max(w, lagWindow))
        shard.state.withLock { s in
            s.metric(metric.rawValue).record(corrected: corrected, uncorrected: uncorrected, failed: failed, window: w)
            Self.recordLag(&s, intended: intended, actual: actual, window: lagWindow)
        }
    }

    /// A duration measured elsewhere (assessment_turnaround_server from the stack's timestamps).
    public func recordValue(_ metric: MetricName, micros: Int64, at: UInt64) {
        let w = window(of: at)
        advance(to: w)
        shard.state.withLock { s in
            s.metric(metric.rawValue).record(corrected: micros, uncorrected: micros, failed: false, window: w)
        }
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
        advance(to: Swift.max(w, lagWindow))
        shard.state.withLock { s in
            let e = s.endpoint(endpoint)
            e.latency.record(corrected: corrected, uncorrected: uncorrected, failed: isError, window: w)
            e.statuses[status ?? -1, default: 0] += 1
            if let code = errorCode { e.errorCodes[code, default: 0] += 1 }
            if let b = breakdown {
                e.dns.record(b.dnsMicros); e.connect.record(b.connectMicros); e.tls.record(b.tlsMicros)
                e.firstByte.record(b.firstByteMicros); e.total.record(b.totalMicros)
            }
            s.requests += 1
            if isError { s.requestErrors += 1 }
            Self.recordLag(&s, intended: intended, actual: actual, window: lagWindow)
        }
        if isError {
            let offset = end &- Swift.min(end, startNanos)
            events.withLock { $0.error(ErrorKey(endpoint: endpoint, status: status, code: errorCode), offset: offset,
                                       message: message, window: w) }
        }
    }

    public func journeyStarted(_ journey: String, cohort: String) {
        events.withLock { $0.journeyStarted(journey, cohort: cohort) }
    }

    public func journeyReached(_ journey: String, cohort: String, step: String) {
        events.withLock { $0.journeySlot(journey, cohort).reach(step) }
    }

    /// Ends a journey at `step`; a completed journey's duration (end − intended) joins its histogram.
    public func journeyEnded(_ journey: String, cohort: String, outcome: JourneyOutcome, step: String,
                             errorCode: String?, intended: UInt64, end: UInt64) {
        let micros = Self.micros(from: intended, to: end)
        events.withLock { $0.journeyEnded(journey, cohort: cohort, outcome: outcome, step: step, errorCode: errorCode, micros: micros) }
    }

    /// Adds `delta` to a named counter (`CounterKey.key`: dropped_arrivals, retries, …).
    public func count(_ counter: String, _ delta: Int64 = 1) {
        events.withLock { $0.counters[counter, default: 0] += delta }
    }

    /// The generator's health now; one sample per window is kept (the latest).
    public func healthSample(activeUsers: Int, inFlight: Int, cpuSeconds: Double, rssBytes: Int64,
                             hostStealSeconds: Double? = nil) {
        let w = window(of: MonotonicClock.now())
        events.withLock {
            $0.health[w] = HealthSample(window: w, activeUsers: activeUsers, inFlight: inFlight,
                                        cpuSeconds: cpuSeconds, rssBytes: rssBytes, hostStealSeconds: hostStealSeconds)
        }
    }

    // MARK: Reading

    /// Everything so far, with `meta` as the header; may be called while recording (live progress).
    public func snapshot(_ meta: RunMetadata) -> RunResults {
        read(meta, windows: nil, breakdowns: true)
    }

    /// What one result-stream line carries: the windows `after + 1 … through` (closed or still in
    /// the shards), every metric and endpoint by name with **empty** latency totals, the endpoints'
    /// status and error-code counts, their breakdown histograms only when `breakdowns`, and the event
    /// tables (errors, journeys, counters) with the health samples of those windows. The windows
    /// add up to the totals (merging is exact), so a reader rebuilds them; a line costs the new
    /// windows, where a snapshot costs every window of the run and a merge of every shard's totals.
    public func streamSlice(_ meta: RunMetadata, after: Int, through: Int, breakdowns: Bool) -> RunResults {
        var r = read(meta, windows: (after + 1)..<Swift.max(after + 1, through + 1), breakdowns: breakdowns)
        r.health = r.health.filter { $0.window > after && $0.window <= through }
        return r
    }

    private func read(_ meta: RunMetadata, windows range: Range<Int>?, breakdowns: Bool) -> RunResults {
        var metrics: [String: MetricSum] = [:], endpoints: [String: EndpointSum] = [:]
        closed.withLock { c in
            if let range {
                for (name, ws) in c.metrics { metrics[name, default: MetricSum()].windows = Self.pick(ws, range) }
                for (name, ws) in c.endpoints { endpoints[name, default: EndpointSum()].latency.windows = Self.pick(ws, range) }
            } else {
                for (name, ws) in c.metrics { metrics[name, default: MetricSum()].windows = ws }
                for (name, ws) in c.endpoints { endpoints[name, default: EndpointSum()].latency.windows = ws }
            }
            for shard in shards {
                let parts = shard.state.withLock { s in
                    range.map { s.parts(windows: $0, breakdowns: breakdowns) } ?? s.parts()
                }
                for (name, p) in parts.metrics { metrics[name, default: MetricSum()].add(p) }
                for (name, p) in parts.endpoints { endpoints[name, default: EndpointSum()].add(p) }
            }
        }
        var r = RunResults(meta: meta, windowNanos: windowNanos)
        // A slice lists every metric by name (its totals are rebuilt from all lines' windows).
        r.metrics = metrics.filter { range != nil || $0.value.corrected.count > 0 }.map { $0.value.result(name: $0.key) }
            .sorted { $0.name < $1.name }
        r.endpoints = endpoints.map { $0.value.result(name: $0.key) }.sorted { $0.name < $1.name }
        events.withLock { e in
            r.errors = e.errorRows()
            r.journeys = e.journeys.values.map { $0.result() }.sorted { $0.sortKey < $1.sortKey }
            r.counters = e.counters
            r.health = e.health.values.sorted { $0.window < $1.window }
        }
        return r
    }

    /// The windows of `table` in `range`, looked up by index (a slice is usually one window).
    private static func pick(_ table: [Int: MetricWindow], _ range: Range<Int>) -> [Int: MetricWindow] {
        var out: [Int: MetricWindow] = [:]
        if range.count <= table.count {
            for i in range { if let w = table[i] { out[i] = w } }
        } else {
            for (i, w) in table where range.contains(i) { out[i] = w }
        }
        return out
    }

    /// Cheap running totals for a progress line.
    public func liveTotals() -> LiveTotals {
        let now = MonotonicClock.now()
        var requests: Int64 = 0, errors: Int64 = 0, turnaround = Histogram()
        for shard in shards {
            shard.state.withLock { s in
                requests += s.requests
                errors += s.requestErrors
                if let t = s.metrics[MetricName.assessmentTurnaround.rawValue] { turnaround.absorb(t.corrected) }
            }
        }
        let journeys = events.withLock { ($0.journeysStarted, $0.journeysCompleted, $0.journeysFailed) }
        return LiveTotals(elapsedNanos: now &- Swift.min(now, startNanos), requests: requests, errors: errors,
                          turnaroundCount: turnaround.count,
                          turnaroundP99Micros: turnaround.value(atPercentile: 99),
                          journeysStarted: journeys.0, journeysCompleted: journeys.1, journeysFailed: journeys.2)
    }

    /// The whole-run totals so far without the per-window detail: what a metrics scrape shows.
    /// Merges the shards' whole-run histograms; windows are not touched.
    public func liveView() -> LiveView {
        let now = MonotonicClock.now()
        var metrics: [String: Histogram] = [:], statuses: [String: [Int: Int64]] = [:]
        for shard in shards {
            shard.state.withLock { s in
                for (name, m) in s.metrics { metrics[name, default: Histogram()].absorb(m.corrected) }
                for (name, e) in s.endpoints { statuses[name, default: [:]].merge(e.statuses, uniquingKeysWith: +) }
            }
        }
        let (journeys, counters) = events.withLock { e in
            (e.journeys.values.map { j in (j.journey, j.cohort, j.started, j.completed, j.abandoned, j.failed) },
             e.counters.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
        }
        return LiveView(
            elapsedNanos: now &- Swift.min(now, startNanos),
            metrics: metrics.map { ($0.key, $0.value) }.sorted { $0.0 < $1.0 },
            requests: statuses.flatMap { name, st in st.map { (name, $0.key < 0 ? "transport" : String($0.key), $0.value) } }
                .sorted { ($0.0, $0.1) < ($1.0, $1.1) },
            journeys: journeys.sorted { ($0.0, $0.1) < ($1.0, $1.1) },
            counters: counters)
    }

    // MARK: Internals

    @inline(__always)
    private static func micros(from start: UInt64, to end: UInt64) -> Int64 {
        // A negative interval (clock misuse) becomes a clamped 0 in the histogram, not a trap.
        Int64(bitPattern: end &- start) / 1000
    }

    @inline(__always)
    private func window(of t: UInt64) -> Int {
        t <= startNanos ? 0 : Int((t - startNanos) / windowNanos)
    }

    /// The calling thread's shard: its id, mixed so that ids a stack size apart spread out.
    @inline(__always)
    private var shard: RecorderShard {
        let id = UInt64(pthread_self())
        return shards[Int(truncatingIfNeeded: (id &* 0x9E37_79B9_7F4A_7C15) >> 58) & (shards.count - 1)]
    }

    @inline(__always)
    private static func recordLag(_ s: inout ShardState, intended: UInt64, actual: UInt64, window: Int) {
        let lag = micros(from: intended, to: actual)
        s.lag.record(corrected: lag, uncorrected: lag, failed: false, window: window)
    }

    /// When time moves into a new window, folds every window older than the previous one out
    /// of the shards (the previous one still receives late samples from slow threads). Called
    /// with no lock held; the thread that moves `latestWindow` does the fold.
    @inline(__always)
    private func advance(to window: Int) {
        var seen = latestWindow.load(ordering: .relaxed)
        while window > seen {
            let (moved, now) = latestWindow.compareExchange(expected: seen, desired: window, ordering: .relaxed)
            if moved { return fold(before: window - 1) }
            seen = now
        }
    }

    private func fold(before window: Int) {
        closed.withLock { c in
            for shard in shards { shard.state.withLock { $0.fold(before: window, into: &c) } }
        }
    }
}
