import Foundation
import FleetCore
import FleetMetrics
#if canImport(Glibc)
import Glibc
#endif

/// The run's results, appended to `<run folder>/stream.jsonl` as windows close, so that a run
/// killed without a chance to write its report (`kill -9`, the OOM killer) loses at most the last
/// window: `fleet report --recover DIR` renders the report from what was streamed.
///
/// Each line holds the windows that closed since the previous line (`Recorder.streamSlice`) and
/// the run's counts so far (statuses, error rows, journeys, counters — a fixed size however long
/// the run), but not the latency totals: the windows add up to them exactly, so recovery rebuilds
/// them from every line's windows, and a line costs the new windows instead of a snapshot of the
/// whole run (which grew with the run's length and cost the bench a fixed slice of CPU each
/// second). The endpoints' breakdown histograms (DNS, connect, TLS, first byte) have no windows;
/// every `breakdownEvery`-th line carries them, so a hard stop loses at most that many windows of
/// them. Recovery takes the counts of the last complete line; a line torn by the kill is skipped.
/// Appends go straight to the kernel (`O_APPEND` `write`), so nothing waits in a user-space
/// buffer when the process dies.
// @unchecked: `fd` is immutable; `streamedThrough` is touched by the run's one monitor task only.
public final class ResultStream: @unchecked Sendable {
    public static let fileName = "stream.jsonl"
    private let fd: Int32
    public let path: String
    /// The last window streamed (-1 before the first line).
    public private(set) var streamedThrough = -1
    /// How often (in lines) the endpoints' breakdown histograms are written.
    public static let breakdownEvery = 10
    private var lines = 0
    private let encoder = JSONEncoder()

    struct Line: Codable {
        /// Windows `0 … through` are closed; this line carries those after the previous line's.
        var through: Int
        /// The counts without the per-window series; latency totals are empty when `fromWindows`.
        var totals: RunResults
        /// The latency totals are to be rebuilt from the windows (absent in older streams, whose
        /// lines held whole snapshots).
        var fromWindows: Bool?
        /// This line's endpoint breakdown histograms are the run's so far.
        var breakdowns: Bool?
        var metricWindows: [String: [MetricWindow]]
        var endpointWindows: [String: [MetricWindow]]
        var errorWindows: [String: [WindowCount]]
        var health: [HealthSample]
    }

    public init(directory: String) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        path = (directory as NSString).appendingPathComponent(Self.fileName)
        fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw RunnerError.failed("\(path): cannot open for appending (errno \(errno))") }
    }

    deinit { close(fd) }

    /// Whether the next line is to carry the breakdown histograms (the first, then every
    /// `breakdownEvery`-th).
    public var breakdownsDue: Bool { lines % Self.breakdownEvery == 0 }

    /// Appends the windows `… through` not streamed yet and the counts, as one line. `results` is
    /// a `Recorder.streamSlice` (`fromWindows`: latency totals rebuilt on recovery) or a whole
    /// snapshot. A failed write is reported, not fatal (the run goes on and still writes its report).
    @discardableResult
    public func append(_ results: RunResults, through: Int, fromWindows: Bool = false, breakdowns: Bool = true) -> Bool {
        let since = streamedThrough
        let fresh = { (i: Int) in i > since && i <= through }
        var line = Line(through: through, totals: results, fromWindows: fromWindows ? true : nil, breakdowns: breakdowns,
                        metricWindows: [:], endpointWindows: [:], errorWindows: [:],
                        health: results.health.filter { fresh($0.window) })
        for (i, m) in results.metrics.enumerated() {
            line.metricWindows[m.name] = m.windows.filter { fresh($0.index) }
            line.totals.metrics[i].windows = []
        }
        for (i, e) in results.endpoints.enumerated() {
            line.endpointWindows[e.name] = e.latency.windows.filter { fresh($0.index) }
            line.totals.endpoints[i].latency.windows = []
        }
        for (i, e) in results.errors.enumerated() {
            line.errorWindows[Self.key(e)] = e.windows.filter { fresh($0.window) }
            line.totals.errors[i].windows = []
        }
        line.totals.health = []
        // Keys in whatever order the encoder meets them: recovery decodes by name, and sorting
        // every object's keys was a tenth of the line's encoding, paid every second. Written in
        // one pass (`StreamingJSON`): `JSONEncoder`'s tree cost ~3.5 M instructions a line (~1.5 M
        // now); it stays the fallback for a value the one-pass writer declines.
        guard var data = try? StreamingJSON.encode(line, orWith: encoder) else { return false }
        data.append(0x0a)
        let written = data.withUnsafeBytes { raw -> Bool in
            var off = 0
            while off < raw.count {
                let n = write(fd, raw.baseAddress! + off, raw.count - off)
                if n < 0 { if errno == EINTR { continue }; return false }
                off += n
            }
            return true
        }
        if written { streamedThrough = through; lines += 1 }
        return written
    }

    /// The results of `directory`'s stream: the last complete line's totals with every streamed
    /// window put back.
    public static func recover(directory: String) throws -> RunResults {
        let path = (directory as NSString).appendingPathComponent(fileName)
        guard let data = FileManager.default.contents(atPath: path) else {
            throw RunnerError.failed("\(path): no result stream to recover from (is \(directory) a run folder?)")
        }
        let decoder = JSONDecoder()
        var last: Line?
        var metricWindows: [String: [MetricWindow]] = [:], endpointWindows: [String: [MetricWindow]] = [:]
        var errorWindows: [String: [WindowCount]] = [:], health: [HealthSample] = []
        var breakdowns: [String: EndpointResult] = [:]
        let lines = data.split(separator: 0x0a, omittingEmptySubsequences: true)
        for raw in lines {
            guard let line = try? decoder.decode(Line.self, from: Data(raw)) else { continue }
            for (k, v) in line.metricWindows { metricWindows[k, default: []] += v }
            for (k, v) in line.endpointWindows { endpointWindows[k, default: []] += v }
            for (k, v) in line.errorWindows { errorWindows[k, default: []] += v }
            if line.breakdowns != false { for e in line.totals.endpoints { breakdowns[e.name] = e } }
            health += line.health
            last = line
        }
        guard let last else { throw RunnerError.failed("\(path): no complete line in \(lines.count)") }
        var r = last.totals
        for i in r.metrics.indices { r.metrics[i].windows = (metricWindows[r.metrics[i].name] ?? []).sorted { $0.index < $1.index } }
        for i in r.endpoints.indices {
            r.endpoints[i].latency.windows = (endpointWindows[r.endpoints[i].name] ?? []).sorted { $0.index < $1.index }
        }
        for i in r.errors.indices { r.errors[i].windows = (errorWindows[key(r.errors[i])] ?? []).sorted { $0.window < $1.window } }
        r.health = health.sorted { $0.window < $1.window }
        if last.fromWindows == true { rebuildTotals(&r, breakdowns: breakdowns) }
        return r
    }

    /// The latency totals as the sum of their windows (exact), the breakdowns of the latest line
    /// that carried them, and the verdicts evaluated again on those totals (a line's own were
    /// taken on its slice).
    private static func rebuildTotals(_ r: inout RunResults, breakdowns: [String: EndpointResult]) {
        func summed(_ m: inout MetricResult) {
            var c = Histogram(), u = Histogram(), errors: Int64 = 0
            for w in m.windows { c.merge(w.corrected); u.merge(w.uncorrected); errors += w.errors }
            m.corrected = c.compacted(); m.uncorrected = u.compacted(); m.errors = errors
        }
        for i in r.metrics.indices { summed(&r.metrics[i]) }
        r.metrics = r.metrics.filter { $0.corrected.count > 0 }
        for i in r.endpoints.indices {
            summed(&r.endpoints[i].latency)
            if let b = breakdowns[r.endpoints[i].name] {
                r.endpoints[i].dns = b.dns; r.endpoints[i].connect = b.connect; r.endpoints[i].tls = b.tls
                r.endpoints[i].firstByte = b.firstByte; r.endpoints[i].total = b.total
            }
        }
        r.reevaluateThresholds()
        // The lag rule needs the rebuilt lag histogram; reasons the line already named stay once.
        let behind = r.generatorBehindReasons().map { "generator fell behind: \($0)" }.filter { !r.meta.notes.contains($0) }
        r.meta.notes.insert(contentsOf: behind, at: 0)
    }

    private static func key(_ e: ErrorRow) -> String {
        "\(e.endpoint)\u{1f}\(e.status.map(String.init) ?? "-")\u{1f}\(e.code ?? "-")"
    }
}
