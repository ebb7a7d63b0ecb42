import Synchronization

// The recorder's hot state, split so that concurrent threads do not queue on one lock: each
// thread records into the shard its id hashes to (two threads may share one; correctness does
// not depend on the mapping). Histogram merging is exact, so a read (snapshot, live totals) adds
// the shards up, and a window is folded out of the shards into `ClosedWindows` soon after it
// closes, so that a long run keeps each closed window once, not once per shard.

/// One shard: the metrics and endpoints recorded by the threads that hash to it.
final class RecorderShard: Sendable {
    let state: Mutex<ShardState>

    init() { state = Mutex(ShardState()) }
}

struct ShardState {
    var metrics: [String: MetricSlot] = [:]
    var endpoints: [String: EndpointSlot] = [:]
    var requests: Int64 = 0
    var requestErrors: Int64 = 0
    /// `scheduling_lag`, fed by every latency sample; also in `metrics` (listed even when empty).
    let lag = MetricSlot(name: MetricName.schedulingLag.rawValue)

    init() { metrics[MetricName.schedulingLag.rawValue] = lag }

    @inline(__always)
    mutating func metric(_ name: String) -> MetricSlot {
        if let s = metrics[name] { return s }
        let s = MetricSlot(name: name)
        metrics[name] = s
        return s
    }

    @inline(__always)
    mutating func endpoint(_ name: String) -> EndpointSlot {
        if let e = endpoints[name] { return e }
        let e = EndpointSlot(name: name)
        endpoints[name] = e
        return e
    }

    /// Moves every window before `window` out of this shard into `closed` (see
    /// `MetricSlot.takeWindows`). Under this shard's lock: the merge is short (a few windows,
    /// sparse), and the slots never leave the lock, so they need not be Sendable values.
    mutating func fold(before window: Int, into closed: inout ClosedWindows) {
        // One list for the whole shard, each name's windows a slice of it (`removeAll(keepingCapacity:)`
        // between names went through the generic `replaceSubrange`, ~1k instructions a name).
        var ws: [WindowSlot] = []
        for (name, s) in metrics {
            let first = ws.count
            s.takeWindows(before: window, into: &ws)
            if ws.count > first { ClosedWindows.merge(ws[first...], into: &closed.metrics[name, default: [:]]) }
        }
        for (name, s) in endpoints {
            let first = ws.count
            s.latency.takeWindows(before: window, into: &ws)
            if ws.count > first { ClosedWindows.merge(ws[first...], into: &closed.endpoints[name, default: [:]]) }
        }
    }

    /// Everything in the shard as values (histograms compacted), for a snapshot.
    func parts() -> ShardParts {
        ShardParts(metrics: metrics.mapValues { $0.part() }, endpoints: endpoints.mapValues { $0.part() })
    }

    /// The windows in `range` (and the endpoints' counts), for a result-stream line.
    func parts(windows range: Range<Int>, breakdowns: Bool) -> ShardParts {
        ShardParts(metrics: metrics.mapValues { $0.part(windows: range) },
                   endpoints: endpoints.mapValues { $0.part(windows: range, breakdowns: breakdowns) })
    }
}

/// A shard's contents as Sendable values.
struct ShardParts: Sendable {
    var metrics: [String: MetricPart]
    var endpoints: [String: EndpointPart]
}

/// One metric of one shard: totals and the windows still open there.
struct MetricPart: Sendable {
    var corrected: Histogram
    var uncorrected: Histogram
    var errors: Int64
    var windows: [MetricWindow]
}

struct EndpointPart: Sendable {
    var latency: MetricPart
    var statuses: [Int: Int64]
    var errorCodes: [String: Int64]
    var dns: Histogram, connect: Histogram, tls: Histogram, firstByte: Histogram, total: Histogram
}

/// Windows folded out of the shards, by metric (and by endpoint), merged across shards.
struct ClosedWindows {
    var metrics: [String: [Int: MetricWindow]] = [:]
    var endpoints: [String: [Int: MetricWindow]] = [:]

    /// Merges windows taken out of a shard, each made sparse first (a dense one merged into a
    /// sparse one would turn the kept window dense).
    static func merge(_ ws: ArraySlice<WindowSlot>, into table: inout [Int: MetricWindow]) {
        for w in ws {
            w.compact()
            add(MetricWindow(index: w.index, corrected: w.corrected, uncorrected: w.uncorrected, errors: w.errors), into: &table)
        }
    }

    static func merge(_ ws: [MetricWindow], into table: inout [Int: MetricWindow]) {
        for w in ws { add(w, into: &table) }
    }

    @inline(__always)
    private static func add(_ w: MetricWindow, into table: inout [Int: MetricWindow]) {
        if let i = table.index(forKey: w.index) {
            // In place: a copy taken out of the table shares its arrays, so adding into a
            // dense one duplicated its counts first, and putting it back was a second lookup
            // (with the copy's retains and releases, ~4k instructions a window and shard).
            table.values[i].corrected.absorb(w.corrected)
            table.values[i].uncorrected.absorb(w.uncorrected)
            table.values[i].errors += w.errors
        } else {
            table[w.index] = w
        }
    }
}

extension Histogram {
    /// `merge`, except that an empty histogram takes `other` as it is (a copy-on-write share):
    /// a sum starts from the first shard's histogram instead of growing an array to copy it into.
    @inline(__always)
    mutating func absorb(_ other: Histogram) {
        if count == 0 && clamped == 0 && other.layout == layout && other.highest == highest { self = other } else { merge(other) }
    }
}

/// A metric summed over the closed windows and every shard.
struct MetricSum {
    var corrected = Histogram()
    var uncorrected = Histogram()
    var errors: Int64 = 0
    var windows: [Int: MetricWindow] = [:]

    mutating func add(_ p: MetricPart) {
        corrected.absorb(p.corrected)
        uncorrected.absorb(p.uncorrected)
        errors += p.errors
        ClosedWindows.merge(p.windows, into: &windows)
    }

    func result(name: String) -> MetricResult {
        MetricResult(name: name, corrected: corrected.compacted(), uncorrected: uncorrected.compacted(), errors: errors,
                     windows: windows.values.sorted { $0.index < $1.index }.map { w in
                         MetricWindow(index: w.index, corrected: w.corrected.compacted(),
                                      uncorrected: w.uncorrected.compacted(), errors: w.errors)
                     })
    }
}

/// An endpoint summed over the closed windows and every shard.
struct EndpointSum {
    var latency = MetricSum()
    var statuses: [Int: Int64] = [:]
    var errorCodes: [String: Int64] = [:]
    var dns = Histogram(), connect = Histogram(), tls = Histogram(), firstByte = Histogram(), total = Histogram()

    mutating func add(_ p: EndpointPart) {
        latency.add(p.latency)
        statuses.merge(p.statuses, uniquingKeysWith: +)
        errorCodes.merge(p.errorCodes, uniquingKeysWith: +)
        dns.absorb(p.dns); connect.absorb(p.connect); tls.absorb(p.tls)
        firstByte.absorb(p.firstByte); total.absorb(p.total)
    }

    func result(name: String) -> EndpointResult {
        var r = EndpointResult(name: name)
        r.latency = latency.result(name: "http:" + name)
        r.statuses = Dictionary(uniqueKeysWithValues: statuses.map { ($0.key < 0 ? "transport" : String($0.key), $0.value) })
        r.errorCodes = errorCodes
        r.dns = dns.compacted(); r.connect = connect.compacted(); r.tls = tls.compacted()
        r.firstByte = firstByte.compacted(); r.total = total.compacted()
        return r
    }
}
