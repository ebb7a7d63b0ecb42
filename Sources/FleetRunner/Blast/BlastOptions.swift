import FleetCore
import FleetHTTP
import Foundation

/// What `fleet blast` drives: one GET, repeated over N connections for D seconds, optionally at a
/// fixed total rate (wrk2's `-R`), through the fleet's own engine and recorder.
public struct BlastOptions: Sendable {
    public var url: String
    /// Requests kept outstanding at once (each runs on its own keep-alive connection).
    public var connections: Int = 64
    public var durationSeconds: Double = 10
    /// Total requests per second across all connections; nil = closed loop (send on completion).
    public var rate: Double?
    /// I/O threads of the engine (each with its own multi handle and connection cache).
    public var ioThreads: Int = 1
    /// Seconds before one request counts as a timeout.
    public var timeoutSeconds: Double = 10
    /// A recording of `FLEET_HTTP_RECORD` to replay instead of the one GET (bench/overhead.sh):
    /// every connection walks the recorded requests in order, bodies and headers as recorded.
    public var replayFile: String?
    /// With `replayFile`: send each recorded request as long after what it followed (its task's
    /// previous answer or send) as it was recorded, chain by chain (`ChainReplayDriver`), instead
    /// of every connection walking the whole recording. `connections` then caps the connections.
    public var asRecorded = false

    public init(url: String) { self.url = url }

    /// Every problem with the options, naming the flag; a non-loopback host is refused, since a
    /// blast is a load test and must never be pointed at someone else's machine by accident.
    public func validate() throws {
        guard let parts = URLComponents(string: url), let scheme = parts.scheme?.lowercased(),
              scheme == "http" || scheme == "https", let host = parts.host, !host.isEmpty else {
            throw RunnerError.badInput("URL '\(url)': expected http://HOST[:PORT]/PATH")
        }
        guard Loopback.isLoopbackHost(host) else {
            throw RunnerError.badInput("URL '\(url)': host '\(host)' is not loopback; blast only targets 127.0.0.0/8, ::1 or localhost")
        }
        guard (1...100_000).contains(connections) else {
            throw RunnerError.badInput("-c \(connections): connections must be 1...100000")
        }
        guard durationSeconds > 0, durationSeconds <= 3600 else {
            throw RunnerError.badInput("-d \(durationSeconds): duration must be > 0 and ≤ 3600 seconds")
        }
        if let rate, !(rate > 0 && rate <= 10_000_000) {
            throw RunnerError.badInput("-R \(rate): rate must be > 0 and ≤ 10000000 requests/s")
        }
        guard (1...64).contains(ioThreads) else {
            throw RunnerError.badInput("-t \(ioThreads): I/O threads must be 1...64")
        }
        if asRecorded, replayFile == nil {
            throw RunnerError.badInput("--as-recorded: replays a recording's timing, so it needs --replay RECORDING")
        }
        if asRecorded, rate != nil {
            throw RunnerError.badInput("--as-recorded and -R: a replay as recorded keeps the recording's own pace; give one of them")
        }
        guard timeoutSeconds > 0, timeoutSeconds <= 600 else {
            throw RunnerError.badInput("--timeout \(timeoutSeconds): must be > 0 and ≤ 600 seconds")
        }
        let limit = ConnectionBudget.openFileLimit()
        guard connections + ConnectionBudget.reservedDescriptors <= limit else {
            throw RunnerError.badInput("-c \(connections): needs about \(connections + ConnectionBudget.reservedDescriptors) open files, but the limit is \(limit) (raise it with ulimit -n)")
        }
    }

    /// Every replayed request must go to loopback too, and there must be one; replayed as
    /// recorded, each must say when it was sent.
    func validateReplay(_ recording: [RecordedRequest]) throws {
        guard let file = replayFile else { return }
        guard !recording.isEmpty else { throw RunnerError.badInput("--replay \(file): no requests recorded") }
        for (i, r) in recording.enumerated() {
            guard let host = URLComponents(string: r.request.url)?.host, Loopback.isLoopbackHost(host) else {
                throw RunnerError.badInput("--replay \(file): \(r.request.url) is not a loopback URL")
            }
            if asRecorded, r.timing == nil {
                throw RunnerError.badInput("--replay \(file): line \(i + 1) has no chain, after and gap (recorded before they were written?); --as-recorded needs them: record again")
            }
        }
    }

    /// The endpoint name the recorder files requests under (`GET /healthz`).
    var endpoint: String {
        if replayFile != nil { return "REPLAY" }
        let path = URLComponents(string: url)?.path ?? ""
        return "GET " + (path.isEmpty ? "/" : path)
    }
}
