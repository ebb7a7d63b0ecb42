import Foundation
import FleetMetrics
#if canImport(Glibc)
import Glibc
#endif

/// The run's results, appended to `<run folder>/stream.jsonl` as windows close, so that a run
/// killed without a chance to write its report (`kill -9`, the OOM killer) loses at most the last
/// window: `fleet report --recover DIR` renders the report from what was streamed.
///
/// Each line holds the run's totals so far (histograms, counts, journeys — a fixed size however
/// long the run) and only the per-window series of the windows that closed since the previous
/// line, so the file grows linearly with the run, not with its square. Recovery takes the totals
/// of the last complete line and the windows of every line; a line torn by the kill is skipped.
/// Appends go straight to the kernel (`O_APPEND` `write`), so nothing waits in a user-space
/// buffer when the process dies.
// @unchecked: `fd` is immutable; `streamedThrough` is touched by the run's one monitor task only.
public final class ResultStream: @unchecked Sendable {
    public static let fileName = "stream.jsonl"
    private let fd: Int32
    public let path: String
    private var streamedThrough = -1

    struct Line: Codable {
        /// Windows `0 … through` are closed; this line carries those after the previous line's.
        var through: Int
        /// The snapshot without its per-window series.
        var totals: RunResults
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

    /// Appends the snapshot's totals and its windows `… through` not streamed yet, as one line. A
    /// failed write is reported, not fatal (the run goes on and still writes its report).
    @discardableResult
    public func append(_ results: RunResults, through: Int) -> Bool {
        let since = streamedThrough
        let fresh = { (i: Int) in i > since && i <= through }
        var line = Line(through: through, totals: results, metricWindows: [:], endpointWindows: [:], errorWindows: [:],
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
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        guard var data = try? encoder.encode(line) else { return false }
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
        if written { streamedThrough = through }
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
        let lines = data.split(separator: 0x0a, omittingEmptySubsequences: true)
        for raw in lines {
            guard let line = try? decoder.decode(Line.self, from: Data(raw)) else { continue }
            for (k, v) in line.metricWindows { metricWindows[k, default: []] += v }
            for (k, v) in line.endpointWindows { endpointWindows[k, default: []] += v }
            for (k, v) in line.errorWindows { errorWindows[k, default: []] += v }
            health += line.health
            last = line
        }
        guard var r = last?.totals else { throw RunnerError.failed("\(path): no complete line in \(lines.count)") }
        for i in r.metrics.indices { r.metrics[i].windows = (metricWindows[r.metrics[i].name] ?? []).sorted { $0.index < $1.index } }
        for i in r.endpoints.indices {
            r.endpoints[i].latency.windows = (endpointWindows[r.endpoints[i].name] ?? []).sorted { $0.index < $1.index }
        }
        for i in r.errors.indices { r.errors[i].windows = (errorWindows[key(r.errors[i])] ?? []).sorted { $0.window < $1.window } }
        r.health = health.sorted { $0.window < $1.window }
        return r
    }

    private static func key(_ e: ErrorRow) -> String {
        "\(e.endpoint)\u{1f}\(e.status.map(String.init) ?? "-")\u{1f}\(e.code ?? "-")"
    }
}
