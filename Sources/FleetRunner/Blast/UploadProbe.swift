import Dispatch
import FleetCore
import FleetHTTP
import Foundation
import Synchronization

/// What `UploadProbe.run` does: `users` requests started at the same instant through the real
/// engine, each a PUT of one shared clip (or a GET when `clipPath` is nil).
public struct UploadProbeOptions: Sendable {
    public var url: String
    public var users: Int
    /// The clip every user uploads, mapped once and shared; nil = GETs (the baseline).
    public var clipPath: String?
    /// The engine's `maxConcurrentUploads` (nil = the engine's default).
    public var maxConcurrentUploads: Int?
    public var timeoutSeconds: Double = 120

    public init(url: String, users: Int, clipPath: String?) {
        self.url = url
        self.users = users
        self.clipPath = clipPath
    }
}

/// The memory and latency of one probe; latency counts from the common intended start.
public struct UploadProbeResult: Sendable {
    public var method: String
    public var users: Int
    public var bodyBytes: Int
    public var maxConcurrentUploads: Int
    /// Resident memory after the engine started and the clip was mapped and read once.
    public var rssBeforeBytes: Int64
    /// The process's resident high-water mark (VmHWM) when every request had completed.
    public var rssPeakBytes: Int64
    public var ok: Int
    /// Non-2xx statuses and error kinds, with counts.
    public var failures: [String: Int]
    public var peakInFlight: Int
    public var peakUploadsWaiting: Int
    public var latencyP50Seconds: Double
    public var latencyMaxSeconds: Double
    public var seconds: Double
    public var timedOut: Bool

    /// One JSON object on one line (what bench/upload-memory.sh reads).
    public func json() -> String {
        let fails = failures.sorted { $0.key < $1.key }.map { "\"\($0.key)\": \($0.value)" }.joined(separator: ", ")
        return """
        {"method": "\(method)", "users": \(users), "body_bytes": \(bodyBytes), "max_concurrent_uploads": \(maxConcurrentUploads), \
        "rss_before_bytes": \(rssBeforeBytes), "rss_peak_bytes": \(rssPeakBytes), \
        "rss_growth_bytes": \(rssPeakBytes - rssBeforeBytes), "ok": \(ok), "failures": {\(fails)}, \
        "peak_in_flight": \(peakInFlight), "peak_uploads_waiting": \(peakUploadsWaiting), \
        "latency_p50_s": \(latencyP50Seconds), "latency_max_s": \(latencyMaxSeconds), "seconds": \(seconds), "timed_out": \(timedOut)}
        """
    }
}

/// Measures what `users` simultaneous uploads of a shared clip cost in resident memory, through
/// the same `HTTPEngine` configuration a run uses (issue 6: < 100 MB over the same number of GETs).
public enum UploadProbe {
    public static func run(_ options: UploadProbeOptions) throws -> UploadProbeResult {
        guard options.users > 0 else { throw RunnerError.badInput("users must be > 0, got \(options.users)") }
        guard options.timeoutSeconds > 0 else { throw RunnerError.badInput("timeout must be > 0") }
        var config = HTTPEngine.Configuration()
        if let cap = options.maxConcurrentUploads { config.maxConcurrentUploads = cap }
        let engine = try HTTPEngine(configuration: config)
        defer { engine.shutdown() }
        var clip: SharedBytes?
        if let path = options.clipPath {
            // The mapping reads every page in, so the clip's own pages are in the baseline, not the growth.
            do { clip = try SharedBytes(mappingFile: path) } catch { throw RunnerError.badInput("cannot map clip \(path): \(error)") }
        }
        let before = ProcessStats.residentBytes()
        let outcomes = ProbeTally(users: options.users)
        let queue = DispatchQueue(label: "fleet.probe.completions")
        let group = DispatchGroup()
        let method = clip == nil ? "GET" : "PUT"
        let start = MonotonicClock.now()
        for _ in 0..<options.users {
            group.enter()
            let request = HTTPRequest(method: method, url: options.url,
                                      headers: clip == nil ? [] : [HTTPHeader("Content-Type", "audio/flac")],
                                      body: clip.map { HTTPBody($0) }, timeout: options.timeoutSeconds)
            engine.send(request, queue: queue) { result in
                outcomes.record(result, seconds: Double(MonotonicClock.now() - start) / 1e9)
                group.leave()
            }
        }
        var peakInFlight = 0, peakWaiting = 0, timedOut = false
        let deadline = start + UInt64((options.timeoutSeconds + 10) * 1e9)
        while group.wait(timeout: .now() + 0.02) == .timedOut {
            peakInFlight = max(peakInFlight, engine.inFlight)
            peakWaiting = max(peakWaiting, engine.uploadsWaiting)
            if MonotonicClock.now() > deadline { timedOut = true; break }
        }
        let seconds = Double(MonotonicClock.now() - start) / 1e9
        let (ok, failures, latencies) = outcomes.summary()
        return UploadProbeResult(method: method, users: options.users, bodyBytes: clip?.count ?? 0,
                                 maxConcurrentUploads: config.maxConcurrentUploads,
                                 rssBeforeBytes: before, rssPeakBytes: highWaterMark() ?? ProcessStats.residentBytes(),
                                 ok: ok, failures: failures, peakInFlight: peakInFlight, peakUploadsWaiting: peakWaiting,
                                 latencyP50Seconds: latencies.isEmpty ? 0 : latencies[latencies.count / 2],
                                 latencyMaxSeconds: latencies.last ?? 0, seconds: seconds, timedOut: timedOut)
    }

    /// VmHWM from /proc/self/status in bytes: the peak, which 20 ms sampling could miss.
    static func highWaterMark() -> Int64? {
        guard let bytes = FileBytes.read("/proc/self/status") else { return nil }
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") where line.hasPrefix("VmHWM:") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            if fields.count >= 2, let kib = Int64(fields[1]) { return kib * 1024 }
        }
        return nil
    }
}

/// Outcome counts and latencies from completion handlers, all behind one Mutex.
private final class ProbeTally: Sendable {
    private struct Counts {
        var ok = 0
        var failures: [String: Int] = [:]
        var latencies: [Double] = []
    }
    private let counts: Mutex<Counts>

    init(users: Int) {
        var c = Counts()
        c.latencies.reserveCapacity(users)
        counts = Mutex(c)
    }

    func record(_ result: Result<HTTPResponse, HTTPError>, seconds: Double) {
        counts.withLock { c in
            c.latencies.append(seconds)
            switch result {
            case .success(let r) where (200..<300).contains(r.status): c.ok += 1
            case .success(let r): c.failures["status \(r.status)", default: 0] += 1
            case .failure(let e): c.failures["\(e.kind)", default: 0] += 1
            }
        }
    }

    func summary() -> (Int, [String: Int], [Double]) {
        counts.withLock { c in (c.ok, c.failures, c.latencies.sorted()) }
    }
}
