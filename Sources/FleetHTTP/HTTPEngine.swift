import CCurl
import CCurlShim
import Dispatch
import FleetCore
import Foundation
import Synchronization

/// The bench's HTTP client: libcurl's multi interface on a few I/O threads, completing every
/// transfer back onto the caller's Dispatch queue.
///
/// No thread per request or per user: each I/O thread owns one multi handle with all its sockets
/// and its connection cache. `send` never blocks; it hands the request to a thread and returns a
/// transfer that can be cancelled. Every completion runs exactly once, on the given queue.
public final class HTTPEngine: Sendable {
    /// Tuning knobs; the defaults suit a laptop driving a stack on loopback.
    public struct Configuration: Sendable {
        /// I/O threads, each with its own epoll set and multi handles (and its own connections).
        public var ioThreads: Int = 1
        /// libcurl multi handles per I/O thread. Each has its own connection cache; libcurl 7.88
        /// walks a cache on every transfer, so several short caches beat one long one at
        /// thousands of connections. Transfers go to the least busy, so light load stays in one.
        public var multiHandlesPerThread: Int = 4
        /// Cap on open connections for the whole engine (0 = unlimited); excess transfers wait in
        /// curl. Split evenly over every multi handle (rounded up).
        public var maxConnections: Int = 0
        /// Cap on open connections per host for the whole engine (0 = unlimited), split the same way.
        public var maxConnectionsPerHost: Int = 0
        /// Seconds to establish a TCP (and TLS) connection.
        public var connectTimeout: Double = 5
        /// Larger response bodies fail with `.other` instead of growing memory without bound.
        public var maxResponseBytes: Int = 16 << 20
        /// Idle connections kept for reuse, engine-wide (0 = libcurl's default, which grows with
        /// the number of transfers in flight).
        public var connectionCacheSize: Int = 0
        /// Cap on clip uploads (request bodies over `HTTPEngine.queuedUploadMinBytes`) sending at
        /// once, engine-wide (0 = unlimited); later ones wait in a FIFO queue, not dropped, and
        /// their wait shows in latency measured from the intended start. Each sending upload
        /// holds a libcurl upload buffer (16 KiB at least) for its whole transfer, so 10,000
        /// users uploading at once would hold 160 MB of copies of the shared clip; 1,024 bounds
        /// that at 16 MiB while still sending far more uploads at once than one phone (browsers
        /// open 6 connections per host). Split evenly over the I/O threads (rounded up).
        public var maxConcurrentUploads: Int = 1024
        /// Local IP address every connection is bound to before it connects (libcurl's
        /// CURLOPT_INTERFACE as `host!ADDR`), or nil for the kernel's choice. Several bench
        /// processes on one machine (`fleet run --shard`) then look like several clients to the
        /// stack: 127.0.0.2, 127.0.0.3, … all reach a stack listening on 127.0.0.1.
        public var sourceAddress: String?

        public init() {}

        /// An engine for virtual users (`fleet run`, `fleet capacity`): when they run on the
        /// loops (`EngineLevers.usersOnLoops`), one loop per core (at most 16), since each loop
        /// is one thread for its users' work as well as their I/O; else one I/O thread.
        /// `maxConnections` 0 (a profile's `client.connections` unset) means as many as this
        /// process can hold (`ConnectionBudget.automatic()`), never unlimited: a server that
        /// stops answering must not drive the bench into its own open-file or port limits.
        public static func forVirtualUsers(maxConnections: Int = 0) -> Configuration {
            var c = Configuration()
            c.maxConnections = maxConnections > 0 ? maxConnections : ConnectionBudget.automatic()
            if EngineLevers.current.usersOnLoops {
                c.ioThreads = min(16, max(1, ProcessInfo.processInfo.activeProcessorCount))
            }
            return c
        }
    }

    private let loops: [IOLoop]
    private let next = Atomic<Int>(0)
    private let maxResponseBytes: Int

    /// Starts the I/O threads; throws a clear error for a nonsensical configuration.
    public init(configuration: Configuration = .init()) throws {
        guard (1...64).contains(configuration.ioThreads) else {
            throw HTTPError(kind: .other, message: "ioThreads must be 1...64, got \(configuration.ioThreads)")
        }
        guard (1...64).contains(configuration.multiHandlesPerThread) else {
            throw HTTPError(kind: .other, message: "multiHandlesPerThread must be 1...64, got \(configuration.multiHandlesPerThread)")
        }
        guard configuration.maxConnections >= 0, configuration.maxConnectionsPerHost >= 0,
              configuration.connectionCacheSize >= 0, configuration.maxConcurrentUploads >= 0 else {
            throw HTTPError(kind: .other, message: "connection limits must be ≥ 0")
        }
        guard configuration.connectTimeout > 0, configuration.maxResponseBytes > 0 else {
            throw HTTPError(kind: .other, message: "connectTimeout and maxResponseBytes must be > 0")
        }
        let initCode = curlGlobalInit
        guard initCode == CURLE_OK.rawValue else {
            throw HTTPError(kind: .other, message: "curl_global_init failed with code \(initCode)")
        }
        maxResponseBytes = configuration.maxResponseBytes
        var loops: [IOLoop] = []
        for i in 0..<configuration.ioThreads {
            loops.append(try IOLoop(configuration: configuration, index: i))
        }
        self.loops = loops
    }

    deinit { shutdown() }

    /// Starts `request`; `completion` runs once on `queue` with the response or the error. With
    /// no queue it runs on the engine's I/O thread, which it must not hold up: resuming a
    /// continuation is what it is for.
    ///
    /// A request sent from a task running on one of this engine's loops (`userExecutors`) goes
    /// to that loop, so the user, its transfers and their completions share one thread.
    @discardableResult
    public func send(_ request: HTTPRequest, queue: DispatchQueue?,
                     completion: @escaping @Sendable (Result<HTTPResponse, HTTPError>) -> Void) -> HTTPTransfer {
        let loop: IOLoop
        if loops.count == 1 {
            loop = loops[0]
        } else if let current = LoopThread.current as? IOLoop, loops.contains(where: { $0 === current }) {
            loop = current
        } else {
            loop = loops[next.wrappingAdd(1, ordering: .relaxed).oldValue % loops.count]
        }
        let completion = RequestLog.shared.map { $0.recording(request, completion) } ?? completion
        let transfer = HTTPTransfer(request: request, queue: queue, loop: loop,
                                    maxResponseBytes: maxResponseBytes, completion: completion)
        if !loop.submit(transfer) {
            (queue ?? .global()).async { completion(.failure(HTTPError(kind: .aborted, message: "engine shut down"))) }
        }
        return transfer
    }

    /// Each I/O loop's counts of its work (what the tests read).
    var loopStats: [IOLoop.Stats] { loops.map(\.stats) }

    /// Executors for the virtual users' tasks (`Task(executorPreference:)`): the I/O loops
    /// themselves. A user whose task prefers one runs, sends, is answered and sleeps on that
    /// loop's thread (`IOLoop+Executor`). Spread users over all of them; each is one thread.
    public var userExecutors: [any TaskExecutor] { loops }

    /// Transfers sent and not yet completed (a generator-health figure).
    public var inFlight: Int {
        loops.reduce(0) { $0 + $1.inFlight.load(ordering: .relaxed) }
    }

    /// Clip uploads waiting for a sending slot (`maxConcurrentUploads`); counted in `inFlight` too.
    public var uploadsWaiting: Int {
        loops.reduce(0) { $0 + $1.uploadsWaiting.load(ordering: .relaxed) }
    }

    /// Bodies larger than this count as clip uploads for `maxConcurrentUploads`. API calls'
    /// JSON bodies are far smaller and never wait behind clips.
    public static let queuedUploadMinBytes = 64 << 10

    /// Completes every pending transfer with `.aborted` and joins the I/O threads. Idempotent;
    /// later `send`s complete at once with `.aborted`.
    public func shutdown() {
        for loop in loops { loop.stop() }
    }
}

/// `curl_global_init` must run once per process before any other curl call; Swift runs a global's
/// initialiser exactly once, thread-safely, on first use.
private let curlGlobalInit: UInt32 = fleet_curl_global_init().rawValue
