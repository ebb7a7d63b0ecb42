// Exact merging of results: two shards of one run become what one process would have recorded.

extension RunResults {
    /// The window of these results (`windowNanos` long) that holds window `index` of results
    /// with `otherWindowNanos` windows that started `offsetNanos` after these: the window of its
    /// midpoint when it is shifted, of its start otherwise.
    static func window(_ index: Int, of otherWindowNanos: UInt64, into windowNanos: UInt64, offsetNanos: UInt64) -> Int {
        if otherWindowNanos == windowNanos && offsetNanos == 0 { return index }
        if offsetNanos == 0 { return Int((UInt64(index) &* otherWindowNanos) / windowNanos) }
        return Int((UInt64(index) &* otherWindowNanos &+ otherWindowNanos / 2 &+ offsetNanos) / windowNanos)
    }

    /// Adds `other` (another shard of the same run) to these results.
    ///
    /// Histograms add (exact); windows align by their offset from each shard's start (a shard with a
    /// different window length has its windows re-indexed by start offset); counts, status and error
    /// tables add; health samples of the same window add (shards are separate processes).
    /// The metadata stays this side's, with the longer actual duration, both sides' notes and the
    /// shard count summed; thresholds are left for the caller to evaluate again on the merged data.
    ///
    /// `offsetNanos` is how long after this side's start `other` started on the wall clock
    /// (`fleet merge` aligns shards that way): each of its windows goes to the window of this
    /// side that holds its midpoint, and its first-error offsets move by as much.
    public mutating func merge(_ other: RunResults, offsetNanos: UInt64 = 0) {
        let reindex: (Int) -> Int = { [windowNanos] index in
            Self.window(index, of: other.windowNanos, into: windowNanos, offsetNanos: offsetNanos)
        }
        // `other`'s windows are moved first, so that metrics only `other` has move too.
        let moved: (MetricResult) -> MetricResult = { m in
            var out = MetricResult(name: m.name)
            out.merge(m, reindex: reindex)
            return out
        }
        metrics = Self.mergeByKey(metrics, other.metrics.map(moved), key: \.name) { a, b in a.merge(b) }
        let otherEndpoints = other.endpoints.map { e -> EndpointResult in
            var e = e
            e.latency = moved(e.latency)
            return e
        }
        endpoints = Self.mergeByKey(endpoints, otherEndpoints, key: \.name) { a, b in
            a.latency.merge(b.latency)
            a.statuses.merge(b.statuses, uniquingKeysWith: +)
            a.errorCodes.merge(b.errorCodes, uniquingKeysWith: +)
            a.dns.merge(b.dns); a.connect.merge(b.connect); a.tls.merge(b.tls)
            a.firstByte.merge(b.firstByte); a.total.merge(b.total)
        }
        // Re-indexed before combining, so that rows only `other` has move too.
        let shifted = other.errors.map { e -> ErrorRow in
            var e = e
            e.firstOffsetNanos &+= offsetNanos
            e.windows = e.windows.map { WindowCount(window: reindex($0.window), count: $0.count) }
            return e
        }
        errors = Self.mergeByKey(errors, shifted, key: \.sortKey) { a, b in
            a.count += b.count
            a.firstOffsetNanos = Swift.min(a.firstOffsetNanos, b.firstOffsetNanos)
            if a.sampleMessage == nil { a.sampleMessage = b.sampleMessage }
            a.windows = Self.mergeCounts(a.windows, b.windows)
        }
        journeys = Self.mergeByKey(journeys, other.journeys, key: \.sortKey) { a, b in
            a.started += b.started; a.completed += b.completed
            a.abandoned += b.abandoned; a.failed += b.failed
            for s in b.steps {
                if let i = a.steps.firstIndex(where: { $0.step == s.step }) { a.steps[i].reached += s.reached }
                else { a.steps.append(s) }
            }
            a.exits = Self.mergeByKey(a.exits, b.exits, key: \.sortKey) { x, y in x.count += y.count }
            a.duration.merge(b.duration)
        }
        counters.merge(other.counters, uniquingKeysWith: +)
        var byWindow = Dictionary(health.map { ($0.window, $0) }, uniquingKeysWith: { $1 })
        for var h in other.health {
            h.window = reindex(h.window)
            if var mine = byWindow[h.window] {
                mine.activeUsers += h.activeUsers; mine.inFlight += h.inFlight
                mine.cpuSeconds += h.cpuSeconds; mine.rssBytes += h.rssBytes
                // Shards on separate hosts each lose their own steal: the merged figure is the sum
                // (`ShardMerge` counts shards that shared a machine once).
                if mine.hostStealSeconds != nil || h.hostStealSeconds != nil {
                    mine.hostStealSeconds = (mine.hostStealSeconds ?? 0) + (h.hostStealSeconds ?? 0)
                }
                byWindow[h.window] = mine
            } else {
                byWindow[h.window] = h
            }
        }
        health = byWindow.values.sorted { $0.window < $1.window }
        // Each shard's users are its own, so violations never overlap: the union, sorted, each
        // `first_at_s` moved by `offsetNanos` like the error table's first offsets.
        let shift = Double(offsetNanos) / 1e9
        violations = (violations + other.violations.map { v in var v = v; v.firstAtS += shift; return v }).sorted()
        meta.actualDurationSeconds = Swift.max(meta.actualDurationSeconds, other.meta.actualDurationSeconds)
        meta.plannedDurationSeconds = Swift.max(meta.plannedDurationSeconds, other.meta.plannedDurationSeconds)
        for n in other.meta.notes where !meta.notes.contains(n) { meta.notes.append(n) }
        meta.shards += other.meta.shards
    }

    /// Merges two keyed lists into one list sorted by `key`, combining equal keys with `combine`.
    static func mergeByKey<T, K: Comparable & Hashable>(_ a: [T], _ b: [T], key: (T) -> K,
                                                        combine: (inout T, T) -> Void) -> [T] {
        var out = a
        var position = Dictionary(out.enumerated().map { (key($1), $0) }, uniquingKeysWith: { first, _ in first })
        for item in b {
            let k = key(item)
            if let i = position[k] { combine(&out[i], item) }
            else { position[k] = out.count; out.append(item) }
        }
        return out.sorted { key($0) < key($1) }
    }

    static func mergeCounts(_ a: [WindowCount], _ b: [WindowCount]) -> [WindowCount] {
        var d = Dictionary(a.map { ($0.window, $0.count) }, uniquingKeysWith: +)
        for w in b { d[w.window, default: 0] += w.count }
        return d.map { WindowCount(window: $0.key, count: $0.value) }.sorted { $0.window < $1.window }
    }
}

extension MetricResult {
    /// Adds `other`'s totals and windows (re-indexed by `reindex`) to this metric.
    mutating func merge(_ other: MetricResult, reindex: (Int) -> Int = { $0 }) {
        corrected.merge(other.corrected)
        uncorrected.merge(other.uncorrected)
        errors += other.errors
        var byIndex = Dictionary(windows.enumerated().map { ($1.index, $0) }, uniquingKeysWith: { $1 })
        for w in other.windows {
            let i = reindex(w.index)
            if let pos = byIndex[i] {
                windows[pos].corrected.merge(w.corrected)
                windows[pos].uncorrected.merge(w.uncorrected)
                windows[pos].errors += w.errors
            } else {
                var moved = w
                moved.index = i
                byIndex[i] = windows.count
                windows.append(moved)
            }
        }
        windows.sort { $0.index < $1.index }
    }
}

extension ErrorRow {
    /// Orders the error table: endpoint, then status (transport errors first), then code.
    var sortKey: String {
        "\(endpoint)\u{1}\(status.map { String(format6($0)) } ?? "")\u{1}\(code ?? "")"
    }
    private func format6(_ n: Int) -> String {
        let s = String(n)
        return String(repeating: "0", count: Swift.max(0, 6 - s.count)) + s
    }
}

extension JourneyResult {
    var sortKey: String { journey + "\u{1}" + cohort }
}

extension JourneyExit {
    var sortKey: String { outcome.rawValue + "\u{1}" + step + "\u{1}" + (code ?? "") }
}
