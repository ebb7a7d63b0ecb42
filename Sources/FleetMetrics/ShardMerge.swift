import FleetCore

/// `fleet merge`: the shards of one `fleet run --shard i/N` run become the results one process
/// would have recorded, after checking that they really are the shards of one run.
///
/// Histograms, counters, tables and funnels add exactly (`RunResults.merge`); windows are
/// aligned on each shard's wall-clock start (a late shard's windows move by how late it was);
/// thresholds are judged again on the merged data; each shard's generator is summarised in
/// `meta.shardRuns`, and a shard that fell behind or started late is named in the notes.
public enum ShardMerge {
    /// One results file and where it came from (named in every error).
    public struct Input: Sendable {
        public var source: String
        public var results: RunResults
        public init(source: String, results: RunResults) { self.source = source; self.results = results }
    }

    public static func merge(_ inputs: [Input], allowMissing: Bool = false) throws(MetricsError) -> RunResults {
        let (shards, count) = try check(inputs, allowMissing: allowMissing)
        var starts: [Int64] = []
        for x in shards {
            guard let ms = RFC3339.parseMillis(x.results.meta.startedAt) else {
                throw MetricsError.shardMerge("\(x.source): meta.startedAt '\(x.results.meta.startedAt)' is not an RFC 3339 time")
            }
            starts.append(ms)
        }
        let base = starts.min()!
        let first = shards[0].results
        var meta = first.meta
        meta.runId = Self.runId(of: first.meta)
        meta.startedAt = RFC3339.format(millis: base)
        meta.notes = []
        meta.shards = 0
        meta.shard = nil
        meta.actualDurationSeconds = 0
        meta.plannedDurationSeconds = 0
        meta.startCpuSeconds = nil  // each shard's process has its own
        var merged = RunResults(meta: meta, windowNanos: first.windowNanos)
        var summaries: [ShardSummary] = []
        var end = 0.0
        for (x, start) in zip(shards, starts) {
            var r = x.results
            let info = r.meta.shard!
            // The shard's own "fell behind" notes are in its summary; other notes keep its name.
            r.meta.notes = r.meta.notes.filter { !$0.hasPrefix("generator fell behind") }.map { "shard \(info.label): \($0)" }
            let offset = start - base
            merged.merge(r, offsetNanos: UInt64(offset) * 1_000_000)
            end = Swift.max(end, Double(offset) / 1000 + r.meta.actualDurationSeconds)
            summaries.append(summary(of: x.results))
        }
        merged.health = hostSteal(merged.health, shards: zip(shards, starts).map { ($0.results, UInt64($1 - base) * 1_000_000) },
                                  windowNanos: merged.windowNanos)
        merged.meta.actualDurationSeconds = end
        merged.meta.shardRuns = summaries
        let present = Set(shards.map { $0.results.meta.shard!.index })
        let missing = (0..<count).filter { !present.contains($0) }
        if !missing.isEmpty {
            merged.meta.notes.insert("partial run: shard\(missing.count == 1 ? "" : "s") "
                                     + missing.map { "\($0)/\(count)" }.joined(separator: ", ")
                                     + " missing; counts cover \(present.count) of \(count) shards", at: 0)
        }
        merged.meta.notes.insert(contentsOf: merged.generatorBehindReasons().map { "generator fell behind: \($0)" }, at: 0)
        merged.reevaluateThresholds()
        return merged
    }

    /// The merged health samples with the host's steal counted once per machine. Shards on one
    /// machine (one kernel boot id) read one steal counter, each from its own start: the machine's
    /// figure is the largest of their readings, and machines add. `RunResults.merge` adds every
    /// shard's, which is right only when each had a machine of its own: four shards on one VM
    /// reported four times its steal. A shard that recorded no boot id counts as a machine of its own.
    static func hostSteal(_ health: [HealthSample], shards: [(results: RunResults, offsetNanos: UInt64)],
                          windowNanos: UInt64) -> [HealthSample] {
        var perMachine: [String: [Int: Double]] = [:]
        for (i, s) in shards.enumerated() {
            let machine = ShardInfo.machineKey(bootId: s.results.meta.shard?.bootId, position: i)
            for h in s.results.health {
                guard let steal = h.hostStealSeconds else { continue }
                let w = RunResults.window(h.window, of: s.results.windowNanos, into: windowNanos, offsetNanos: s.offsetNanos)
                perMachine[machine, default: [:]][w] = Swift.max(perMachine[machine]?[w] ?? 0, steal)
            }
        }
        // Each machine's latest reading at or before the window: the counter is cumulative, so a
        // machine whose shards stopped earlier (or skipped a sample) still counts what it lost.
        // One walk over each machine's sorted readings beside the windows in order.
        let readings = perMachine.values.map { $0.sorted { $0.key < $1.key } }
        var next = readings.map { _ in 0 }, latest = readings.map { _ in 0.0 }
        return health.sorted { $0.window < $1.window }.map { h in
            for m in readings.indices {
                while next[m] < readings[m].count && readings[m][next[m]].key <= h.window {
                    latest[m] = readings[m][next[m]].value
                    next[m] += 1
                }
            }
            guard h.hostStealSeconds != nil else { return h }
            var h = h
            h.hostStealSeconds = latest.reduce(0, +)
            return h
        }
    }

    /// The inputs in shard order and the shard count, or the first reason they are not the
    /// shards of one run.
    static func check(_ inputs: [Input], allowMissing: Bool) throws(MetricsError) -> ([Input], Int) {
        guard let first = inputs.first else { throw MetricsError.shardMerge("no results to merge") }
        for x in inputs where x.results.meta.shard == nil {
            throw MetricsError.shardMerge("\(x.source): not a shard (no meta.shard); merge the run folders of one `fleet run --shard i/N` run"
                                  + " (`fleet report A.json B.json` adds results without these checks)")
        }
        let a = first.results.meta, sa = a.shard!
        var seen: [Int: String] = [:]
        for x in inputs {
            let b = x.results.meta, sb = b.shard!
            func differ(_ what: String, _ mine: String, _ theirs: String) -> MetricsError {
                MetricsError.shardMerge("\(x.source): \(what) \(theirs) differs from \(first.source)'s \(mine): not shards of one run")
            }
            if b.profile != a.profile { throw differ("profile", "'\(a.profile)'", "'\(b.profile)'") }
            if sb.profileDigest != sa.profileDigest {
                throw differ("profile digest (file bytes, --seed, --duration)", String(sa.profileDigest.prefix(12)),
                             String(sb.profileDigest.prefix(12)))
            }
            if b.seed != a.seed { throw differ("seed", String(a.seed), String(b.seed)) }
            if sb.count != sa.count { throw differ("shard count", String(sa.count), String(sb.count)) }
            if b.target != a.target { throw differ("target", a.target, b.target) }
            if sb.startAt != sa.startAt { throw differ("start barrier", sa.startAt ?? "(none)", sb.startAt ?? "(none)") }
            if let other = seen[sb.index] {
                throw MetricsError.shardMerge("shard \(sb.label) given twice: \(other) and \(x.source)")
            }
            seen[sb.index] = x.source
        }
        let missing = (0..<sa.count).filter { seen[$0] == nil }
        if !missing.isEmpty && !allowMissing {
            throw MetricsError.shardMerge("missing shard\(missing.count == 1 ? "" : "s") " + missing.map { "\($0)/\(sa.count)" }.joined(separator: ", ")
                                  + " of \(sa.count) (given " + seen.keys.sorted().map { "\($0)/\(sa.count)" }.joined(separator: ", ")
                                  + "); pass --allow-missing to merge a partial run")
        }
        return (inputs.sorted { $0.results.meta.shard!.index < $1.results.meta.shard!.index }, sa.count)
    }

    /// `smoke-20261201-200000-42` for `smoke-20261201-200000-42-shard-3-of-20`.
    static func runId(of meta: RunMetadata) -> String {
        guard let s = meta.shard else { return meta.runId }
        let suffix = "-shard-\(s.index)-of-\(s.count)"
        return meta.runId.hasSuffix(suffix) ? String(meta.runId.dropLast(suffix.count)) : meta.runId
    }

    /// One shard's generator, from its own results.
    static func summary(of r: RunResults) -> ShardSummary {
        let info = r.meta.shard!
        let lag = r.metric(MetricName.schedulingLag)?.corrected ?? Histogram()
        let health = r.health.sorted { $0.window < $1.window }
        var peakCPU = 0.0
        for (a, b) in zip(health, health.dropFirst()) where b.window > a.window {
            let seconds = Double(b.window - a.window) * Double(r.windowNanos) / 1e9
            peakCPU = Swift.max(peakCPU, (b.cpuSeconds - a.cpuSeconds) / seconds * 100)
        }
        var behind = r.generatorBehindReasons()
        let bound = r.meta.lagBoundMicros ?? RunResults.defaultLagBoundMicros
        if info.lateByMillis * 1000 > bound {
            behind.append("started \(info.lateByMillis) ms after the start barrier \(info.startAt ?? "")")
        }
        return ShardSummary(index: info.index, count: info.count, runId: r.meta.runId, startedAt: r.meta.startedAt,
                            lateByMillis: info.lateByMillis, sourceAddress: info.sourceAddress, bootId: info.bootId,
                            requests: r.requestTotals.requests,
                            usersStarted: r.counterOverScenarios(.usersStarted),
                            lagP99Micros: lag.isEmpty ? 0 : lag.value(atPercentile: 99), lagMaxMicros: lag.isEmpty ? 0 : lag.max,
                            droppedArrivals: r.counter(.droppedArrivals) ?? 0, peakCPUPercent: peakCPU,
                            peakRSSBytes: health.map(\.rssBytes).max() ?? 0, behind: behind)
    }
}
