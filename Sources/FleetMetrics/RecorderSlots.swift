// The recorder's mutable state, one slot per metric, endpoint, error kind and journey.
// Slots are classes so that recording mutates them in place (no copy-on-write of the
// histograms inside a dictionary value); they are only touched under the recorder's lock.

/// One metric in one window while recording.
final class WindowSlot {
    let index: Int
    var corrected = Histogram()
    var uncorrected = Histogram()
    var errors: Int64 = 0

    init(index: Int) { self.index = index }
}

/// A metric's running histograms: whole run and per window.
final class MetricSlot {
    let name: String
    var corrected = Histogram()
    var uncorrected = Histogram()
    var errors: Int64 = 0
    var windows: [Int: WindowSlot] = [:]
    /// The window used last: nearly every sample lands in it, so no dictionary lookup is needed.
    private var current: WindowSlot?
    /// Windows whose histograms are dense (recording); compacted once the window is past.
    private var denseWindows: [WindowSlot] = []

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
        // A late sample for a compacted window makes it dense again; compact it again later.
        if !denseWindows.contains(where: { $0 === w }) { denseWindows.append(w) }
        if index >= (current?.index ?? Int.min) { current = w }
        return w
    }

    /// Turns the histograms of windows before `window` into their sparse form.
    func compactWindows(before window: Int) {
        if let c = current, c.index < window { current = nil }  // so a late sample re-registers it as dense
        denseWindows.removeAll { w in
            guard w.index < window else { return false }
            w.corrected.compact()
            w.uncorrected.compact()
            return true
        }
    }

    func result() -> MetricResult {
        let ws = windows.values.sorted { $0.index < $1.index }.map { w -> MetricWindow in
            MetricWindow(index: w.index, corrected: w.corrected.compacted(),
                         uncorrected: w.uncorrected.compacted(), errors: w.errors)
        }
        return MetricResult(name: name, corrected: corrected.compacted(), uncorrected: uncorrected.compacted(),
                            errors: errors, windows: ws)
    }
}

/// One `METHOD /template`: latency plus status, error code and breakdown counts.
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

    func result() -> EndpointResult {
        var r = EndpointResult(name: name)
        r.latency = latency.result()
        r.statuses = Dictionary(uniqueKeysWithValues: statuses.map { ($0.key < 0 ? "transport" : String($0.key), $0.value) })
        r.errorCodes = errorCodes
        r.dns = dns.compacted(); r.connect = connect.compacted(); r.tls = tls.compacted()
        r.firstByte = firstByte.compacted(); r.total = total.compacted()
        return r
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
    var stepOrder: [String] = []
    var reached: [String: Int64] = [:]
    var exits: [JourneyExitKey: Int64] = [:]
    var duration = Histogram()

    init(journey: String, cohort: String) {
        self.journey = journey
        self.cohort = cohort
    }

    func reach(_ step: String) {
        if let n = reached[step] { reached[step] = n + 1 }
        else { reached[step] = 1; stepOrder.append(step) }
    }

    func result() -> JourneyResult {
        JourneyResult(
            journey: journey, cohort: cohort, started: started, completed: completed,
            abandoned: abandoned, failed: failed,
            steps: stepOrder.map { StepCount(step: $0, reached: reached[$0] ?? 0) },
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
