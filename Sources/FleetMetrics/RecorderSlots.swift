// The recorder's mutable state, one slot per metric, endpoint, error kind and journey.
// Slots are classes so that recording mutates them in place (no copy-on-write of the
// histograms inside a dictionary value). Metric and endpoint slots live in one recorder shard
// and are only touched under that shard's lock; error and journey slots live in the recorder's
// event tables, under theirs. What leaves a lock is a Sendable value (`MetricPart`, `EndpointPart`).

/// One metric in one window while recording.
final class WindowSlot {
    let index: Int
    /// Sparse while recording (`Histogram.sparseRecording`): a window of a few samples costs
    /// their bins, not a counts array up to the highest one, and closes without a scan.
    var corrected = Histogram.sparseRecording()
    var uncorrected = Histogram.sparseRecording()
    var errors: Int64 = 0

    init(index: Int) { self.index = index }

    /// The window as a kept value, in the sparse form.
    func closed() -> MetricWindow {
        MetricWindow(index: index, corrected: corrected.compacted(), uncorrected: uncorrected.compacted(), errors: errors)
    }

    /// Turns the window's histograms sparse in place, once it has left its shard (nothing
    /// records into it any more): a window that went dense is kept in the sparse form.
    func compact() {
        corrected.compact()
        uncorrected.compact()
    }
}

/// A metric's running histograms in one shard: whole run and the windows not yet folded into
/// the recorder's closed windows (the current one and the previous, plus any late stragglers).
final class MetricSlot {
    let name: String
    var corrected = Histogram()
    var uncorrected = Histogram()
    var errors: Int64 = 0
    var windows: [Int: WindowSlot] = [:]
    /// The window used last: nearly every sample lands in it, so no dictionary lookup is needed.
    private var current: WindowSlot?

    init(name: String) { self.name = name }

    @inline(__always)
    func record(corrected c: Int64, uncorrected u: Int64, failed: Bool, window: Int) {
        corrected.record(c)
        uncorrected.record(u)
        let w = slot(window)
        w.corrected.record(c)
        w.uncorrected.record(u)
        if failed { errors += 1; w.errors += 1 }
    }

    @inline(__always)
    private func slot(_ index: Int) -> WindowSlot {
        if let c = current, c.index == index { return c }
        let w: WindowSlot
        if let existing = windows[index] { w = existing } else { w = WindowSlot(index: index); windows[index] = w }
        if index >= (current?.index ?? Int.min) { current = w }
        return w
    }

    /// Removes the windows before `window` and hands them over, for the recorder to merge into
    /// its store. A late sample for one of them opens it here again, and it is folded again
    /// later: merging is exact, so a window may arrive in several parts. The slots themselves
    /// are handed over (no one records into them once removed): closing each into a value here
    /// copied two histograms a window, ~3k instructions a window and shard (bench/instructions.sh).
    func takeWindows(before window: Int, into out: inout [WindowSlot]) {
        if let c = current, c.index < window { current = nil }
        let first = out.count
        for (index, w) in windows where index < window { out.append(w) }
        // Removed in place: `filter` built a new table every second for every metric.
        for k in first..<out.count { windows.removeValue(forKey: out[k].index) }
    }

    /// Everything this shard holds for the metric, as a value. The totals stay dense (a
    /// copy-on-write share): the snapshot adds the shards' dense arrays and compacts once.
    func part() -> MetricPart {
        MetricPart(corrected: corrected, uncorrected: uncorrected, errors: errors,
                   windows: windows.values.map { $0.closed() })
    }

    /// Only the windows in `range`, without the totals: what a result-stream line needs.
    func part(windows range: Range<Int>) -> MetricPart {
        MetricPart(corrected: Histogram(), uncorrected: Histogram(), errors: 0,
                   windows: windows.values.filter { range.contains($0.index) }.map { $0.closed() })
    }
}

/// One `METHOD /template` in one shard: latency plus status, error code and breakdown counts.
final class EndpointSlot {
    let name: String
    let latency: MetricSlot
    var statuses: [Int: Int64] = [:]  // -1 = transport error (no response)
    var errorCodes: [String: Int64] = [:]
    var dns = Histogram(), connect = Histogram(), tls = Histogram(), firstByte = Histogram(), total = Histogram()

    init(name: String) {
        self.name = name
        self.latency = MetricSlot(name: EndpointResult.latencyPrefix + name)
    }

    func part() -> EndpointPart {
        EndpointPart(latency: latency.part(), statuses: statuses, errorCodes: errorCodes,
                     dns: dns, connect: connect, tls: tls, firstByte: firstByte, total: total)
    }

    /// The windows in `range`, the counts, and the breakdown histograms only when asked for.
    func part(windows range: Range<Int>, breakdowns: Bool) -> EndpointPart {
        let none = Histogram()
        return EndpointPart(latency: latency.part(windows: range), statuses: statuses, errorCodes: errorCodes,
                            dns: breakdowns ? dns : none, connect: breakdowns ? connect : none, tls: breakdowns ? tls : none,
                            firstByte: breakdowns ? firstByte : none, total: breakdowns ? total : none)
    }
}

/// The identity of an error-table row.
struct ErrorKey: Hashable {
    let endpoint: String
    let status: Int?
    let code: String?
}

/// One error-table row while recording.
final class ErrorSlot {
    var count: Int64 = 0
    var firstOffsetNanos: UInt64
    var sampleMessage: String?
    var windows: [Int: Int64] = [:]

    init(firstOffsetNanos: UInt64, sampleMessage: String?) {
        self.firstOffsetNanos = firstOffsetNanos
        self.sampleMessage = sampleMessage
    }
}

/// One (journey, cohort) while recording.
final class JourneySlot {
    let journey: String
    let cohort: String
    var started: Int64 = 0, completed: Int64 = 0, abandoned: Int64 = 0, failed: Int64 = 0
    /// Steps in the order first reached, with how many users reached each: a list, not a
    /// table (a journey has a dozen steps or so), so that reaching one compares a few strings,
    /// the lengths first, instead of hashing the name (bench/instructions.sh: ~400 instructions).
    var steps: [StepCount] = []
    /// Where `reach` starts looking: after the step reached last.
    private var next = 0
    var exits: [JourneyExitKey: Int64] = [:]
    var duration = Histogram()

    init(journey: String, cohort: String) {
        self.journey = journey
        self.cohort = cohort
    }

    func reach(_ step: String) {
        // From the step after the one reached last, round to it: a user walks the funnel in
        // order, so the step looked for is most often the first one compared.
        let n = steps.count
        var i = next < n ? next : 0
        for _ in 0..<n {
            if steps[i].step.utf8.count == step.utf8.count && steps[i].step == step {
                steps[i].reached += 1
                next = i + 1
                return
            }
            i = i + 1 < n ? i + 1 : 0
        }
        steps.append(StepCount(step: step, reached: 1))
        next = n + 1
    }

    func result() -> JourneyResult {
        JourneyResult(
            journey: journey, cohort: cohort, started: started, completed: completed,
            abandoned: abandoned, failed: failed,
            steps: steps,
            exits: exits.map { JourneyExit(outcome: $0.key.outcome, step: $0.key.step, code: $0.key.code, count: $0.value) }
                .sorted { $0.sortKey < $1.sortKey },
            duration: duration.compacted())
    }
}

struct JourneyKey: Hashable {
    let journey: String
    let cohort: String
}

struct JourneyExitKey: Hashable {
    let outcome: JourneyOutcome
    let step: String
    let code: String?
}

/// The recorder's tables whose content depends on call order (an error row's first message, a
/// journey's step order) or that are written rarely (counters, health): one lock, `events`.
struct RecorderEvents {
    var errors: [ErrorKey: ErrorSlot] = [:]
    var journeys: [JourneyKey: JourneySlot] = [:]
    private var lastJourney: JourneySlot?
    var counters: [String: Int64] = [:]
    var health: [Int: HealthSample] = [:]
    var journeysStarted: Int64 = 0, journeysCompleted: Int64 = 0, journeysFailed: Int64 = 0

    mutating func error(_ key: ErrorKey, offset: UInt64, message: String?, window: Int) {
        let row: ErrorSlot
        if let existing = errors[key] { row = existing } else {
            row = ErrorSlot(firstOffsetNanos: offset, sampleMessage: message)
            errors[key] = row
        }
        // Threads finish out of order: the first occurrence is the earliest end, not the first call.
        row.firstOffsetNanos = Swift.min(row.firstOffsetNanos, offset)
        row.count += 1
        row.windows[window, default: 0] += 1
        if row.sampleMessage == nil { row.sampleMessage = message }
    }

    func errorRows() -> [ErrorRow] {
        errors.map { key, row in
            ErrorRow(endpoint: key.endpoint, status: key.status, code: key.code, count: row.count,
                     firstOffsetNanos: row.firstOffsetNanos, sampleMessage: row.sampleMessage,
                     windows: row.windows.map { WindowCount(window: $0.key, count: $0.value) }.sorted { $0.window < $1.window })
        }.sorted { $0.sortKey < $1.sortKey }
    }

    mutating func journeySlot(_ journey: String, _ cohort: String) -> JourneySlot {
        // The slot used last, when it is the same journey and cohort: users of one scenario
        // mostly walk one journey, and comparing two names (the same strings, most often the
        // same storage) costs less than hashing both for the table (~500 instructions a step).
        if let s = lastJourney, s.journey == journey, s.cohort == cohort { return s }
        let key = JourneyKey(journey: journey, cohort: cohort)
        let s: JourneySlot
        if let found = journeys[key] { s = found } else { s = JourneySlot(journey: journey, cohort: cohort); journeys[key] = s }
        lastJourney = s
        return s
    }

    mutating func journeyStarted(_ journey: String, cohort: String) {
        journeySlot(journey, cohort).started += 1
        journeysStarted += 1
    }

    mutating func journeyEnded(_ journey: String, cohort: String, outcome: JourneyOutcome, step: String,
                               errorCode: String?, micros: Int64) {
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
}
