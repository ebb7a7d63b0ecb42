import Foundation

/// Everything a run measured: the input of every report, of `compare` and of `merge`.
///
/// Stable JSON (`encodedJSON()`): keys sorted, every list sorted by its key, histograms sparse and
/// exact, so that two results files (shards) merge into exactly what one process would have
/// recorded (`merge(_:)`), and the same results always serialise to the same bytes.
public struct RunResults: Sendable, Codable, Equatable {
    /// Version of this JSON shape; bumped when a field changes meaning.
    public var format: Int
    public var meta: RunMetadata
    /// The length of one window (1 s by default); window `k` covers `[k, k+1) · windowNanos` from the start.
    public var windowNanos: UInt64
    /// Journey metrics (`assessment_turnaround`, `settlement`, `scheduling_lag`, …), sorted by name.
    public var metrics: [MetricResult]
    /// One row per `METHOD /template`, sorted by name.
    public var endpoints: [EndpointResult]
    /// One row per (endpoint, status, code), sorted by endpoint, status, code.
    public var errors: [ErrorRow]
    /// One row per (journey, cohort), sorted.
    public var journeys: [JourneyResult]
    /// `dropped_arrivals`, `retries`, … (sorted by key in JSON).
    public var counters: [String: Int64]
    /// One sample per window at most, sorted by window.
    public var health: [HealthSample]
    /// Every invariant breach the checker saw, sorted (empty when none, or when checks were off).
    @DefaultEmpty public var violations: [Violation] = []

    public static let currentFormat = 1

    public init(meta: RunMetadata, windowNanos: UInt64 = 1_000_000_000, metrics: [MetricResult] = [],
                endpoints: [EndpointResult] = [], errors: [ErrorRow] = [], journeys: [JourneyResult] = [],
                counters: [String: Int64] = [:], health: [HealthSample] = []) {
        self.format = RunResults.currentFormat
        self.meta = meta
        self.windowNanos = windowNanos
        self.metrics = metrics
        self.endpoints = endpoints
        self.errors = errors
        self.journeys = journeys
        self.counters = counters
        self.health = health
    }

    /// The metric called `name`, if anything was recorded for it.
    public func metric(_ name: String) -> MetricResult? { metrics.first { $0.name == name } }
    /// The endpoint `METHOD /template`, if any request went to it.
    public func endpoint(_ name: String) -> EndpointResult? { endpoints.first { $0.name == name } }

    /// All requests of the run and how many of them were errors (no response or status >= 400).
    public var requestTotals: (requests: Int64, errors: Int64) {
        endpoints.reduce((0, 0)) { ($0.0 + $1.latency.corrected.count, $0.1 + $1.latency.errors) }
    }

    // MARK: JSON

    /// The stable JSON form (sorted keys), as written to `results.json`.
    public func encodedJSON() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return try encoder.encode(self)
    }

    /// Reads a results file; a broken file gives an error naming the path and the problem.
    public static func load(path: String) throws -> RunResults {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw MetricsError.resultsFile(path: path, problem: "cannot read: \(error.localizedDescription)")
        }
        return try decode(data, source: path)
    }

    /// Decodes results JSON; `source` names the input in the error.
    public static func decode(_ data: Data, source: String = "results") throws -> RunResults {
        do {
            let r = try JSONDecoder().decode(RunResults.self, from: data)
            guard r.format <= currentFormat else {
                throw MetricsError.resultsFile(path: source, problem: "format \(r.format) is newer than this bench reads (\(currentFormat))")
            }
            guard r.windowNanos > 0 else { throw MetricsError.resultsFile(path: source, problem: "windowNanos must be > 0") }
            return r
        } catch let e as MetricsError {
            throw e
        } catch let DecodingError.keyNotFound(key, ctx) {
            throw MetricsError.resultsFile(path: source, problem: "missing field \(describe(ctx.codingPath + [key]))")
        } catch let DecodingError.typeMismatch(_, ctx), let DecodingError.valueNotFound(_, ctx) {
            throw MetricsError.resultsFile(path: source, problem: "\(describe(ctx.codingPath)): \(ctx.debugDescription)")
        } catch let DecodingError.dataCorrupted(ctx) {
            throw MetricsError.resultsFile(path: source, problem: "\(describe(ctx.codingPath)): \(ctx.debugDescription)")
        } catch {
            throw MetricsError.resultsFile(path: source, problem: "\(error)")
        }
    }

    private static func describe(_ path: [CodingKey]) -> String {
        let s = path.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
        return s.hasPrefix(".") ? String(s.dropFirst()) : (s.isEmpty ? "(top level)" : s)
    }
}

/// One journey metric: its whole-run histograms and its per-window ones.
public struct MetricResult: Sendable, Codable, Equatable {
    public var name: String
    /// From the intended start (coordinated-omission corrected), microseconds.
    public var corrected: Histogram
    /// From the actual start, microseconds (equal to `corrected` for values measured elsewhere).
    public var uncorrected: Histogram
    /// Samples recorded as failed (they are in the histograms too).
    public var errors: Int64
    /// Non-empty windows only, sorted by index; they merge exactly into the totals.
    public var windows: [MetricWindow]

    public init(name: String, corrected: Histogram = Histogram(), uncorrected: Histogram = Histogram(),
                errors: Int64 = 0, windows: [MetricWindow] = []) {
        self.name = name
        self.corrected = corrected
        self.uncorrected = uncorrected
        self.errors = errors
        self.windows = windows
    }
}

/// One metric in one window.
public struct MetricWindow: Sendable, Codable, Equatable {
    public var index: Int
    public var corrected: Histogram
    public var uncorrected: Histogram
    public var errors: Int64

    public init(index: Int, corrected: Histogram = Histogram(), uncorrected: Histogram = Histogram(), errors: Int64 = 0) {
        self.index = index
        self.corrected = corrected
        self.uncorrected = uncorrected
        self.errors = errors
    }
}

/// Every request to one `METHOD /template`.
public struct EndpointResult: Sendable, Codable, Equatable {
    /// `GET /attempts/{id}`.
    public var name: String
    /// Latency (name `http:GET /attempts/{id}`); `errors` counts no-response and status >= 400.
    public var latency: MetricResult
    /// Count per status code ("200", "404"), and "transport" for requests that got no response.
    public var statuses: [String: Int64]
    /// Count per API error code or transport kind ("stage_precondition", "timeout").
    public var errorCodes: [String: Int64]
    /// libcurl's breakdown of the requests that reported one, microseconds.
    public var dns: Histogram
    public var connect: Histogram
    public var tls: Histogram
    public var firstByte: Histogram
    public var total: Histogram

    /// What an endpoint's latency metric is named by (`http:GET /home`), in results and thresholds.
    public static let latencyPrefix = "http:"

    public init(name: String) {
        self.name = name
        self.latency = MetricResult(name: EndpointResult.latencyPrefix + name)
        self.statuses = [:]
        self.errorCodes = [:]
        self.dns = Histogram(); self.connect = Histogram(); self.tls = Histogram()
        self.firstByte = Histogram(); self.total = Histogram()
    }
}

/// A kind of error seen on one endpoint, for the error table.
public struct ErrorRow: Sendable, Codable, Equatable {
    public var endpoint: String
    /// nil when there was no response (transport error).
    public var status: Int?
    /// API error code or transport kind.
    public var code: String?
    public var count: Int64
    /// When it first happened, nanoseconds from the run's start.
    public var firstOffsetNanos: UInt64
    public var sampleMessage: String?
    /// How many per window, sorted by window (errors over time).
    public var windows: [WindowCount]

    public init(endpoint: String, status: Int?, code: String?, count: Int64, firstOffsetNanos: UInt64,
                sampleMessage: String?, windows: [WindowCount]) {
        self.endpoint = endpoint
        self.status = status
        self.code = code
        self.count = count
        self.firstOffsetNanos = firstOffsetNanos
        self.sampleMessage = sampleMessage
        self.windows = windows
    }
}

/// A count in one window.
public struct WindowCount: Sendable, Codable, Equatable {
    public var window: Int
    public var count: Int64
    public init(window: Int, count: Int64) { self.window = window; self.count = count }
}
