#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// The reference stack's HTTP/1.1 server: epoll, a few I/O threads, keep-alive and pipelining.
///
/// Connections are dealt round-robin to `ioThreads` event loops; each loop parses requests,
/// calls the handler on its thread, and writes responses in request order with one `send` per
/// batch. Malformed input gets a JSON error envelope (400, 413, 431, 501, 505) and a close;
/// slow clients are cut off by `ServerLimits`' timeouts. Listens on loopback by default.
public final class HTTPServer: Sendable {
    private let host: String
    private let port: Int
    private let limits: ServerLimits
    private let ioThreads: Int
    private let handler: any ServerHandler
    private let gate: ConnectionGate

    private enum RunState {
        case idle
        case running(listener: Int32, loops: [EventLoop], threads: [pthread_t])
        case stopped
    }
    private let state = Mutex(RunState.idle)

    public init(host: String = "127.0.0.1", port: Int = 0, limits: ServerLimits = .init(), ioThreads: Int = 2,
                handler: any ServerHandler) {
        self.host = host
        self.port = port
        self.limits = limits
        self.ioThreads = max(1, ioThreads)
        self.handler = handler
        self.gate = ConnectionGate(limit: max(1, limits.maxConnections))
    }

    deinit { stop() }

    /// Connections open right now (for tests and diagnostics).
    public var openConnectionCount: Int { gate.count }

    /// Binds, starts the I/O threads and returns the bound port (port 0 → ephemeral).
    public func start() throws -> Int {
        try state.withLock { state throws(ServerError) -> Int in
            guard case .idle = state else { throw .alreadyStarted }
            let (listener, boundPort) = try ListenSocket.open(host: host, port: port)
            var loops: [EventLoop] = []
            do throws(ServerError) {
                for _ in 0..<ioThreads {
                    loops.append(try EventLoop(handler: handler, limits: limits, gate: gate))
                }
                loops[0].acceptor = Acceptor(listener: listener, loops: loops, gate: gate)
                try loops[0].watchListener(listener)
            } catch {
                loops.first?.acceptor = nil
                try? Sys.close(listener)
                throw error
            }
            var threads: [pthread_t] = []
            for loop in loops {
                do throws(ServerError) {
                    threads.append(try Self.spawn { loop.run() })
                } catch {
                    for started in loops { started.requestStop() }
                    for thread in threads { pthread_join(thread, nil) }
                    try? Sys.close(listener)
                    throw error
                }
            }
            state = .running(listener: listener, loops: loops, threads: threads)
            return boundPort
        }
    }

    /// Closes the listener and every connection and joins the I/O threads. Safe to call twice.
    /// Responses delivered after this are dropped.
    public func stop() {
        let previous = state.withLock { state -> RunState in
            let old = state
            if case .running = old { state = .stopped }
            return old
        }
        guard case .running(let listener, let loops, let threads) = previous else { return }
        for loop in loops { loop.requestStop() }
        for thread in threads { pthread_join(thread, nil) }
        try? Sys.close(listener)
    }

    private final class ThreadBody {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }

    private static func spawn(_ body: @escaping @Sendable () -> Void) throws(ServerError) -> pthread_t {
        var thread = pthread_t()
        let context = Unmanaged.passRetained(ThreadBody(body)).toOpaque()
        let rc = pthread_create(&thread, nil, { raw in
            let body = Unmanaged<ThreadBody>.fromOpaque(raw!).takeRetainedValue()
            body.run()
            return nil
        }, context)
        if rc != 0 {
            Unmanaged<ThreadBody>.fromOpaque(context).release()
            throw .system(call: "pthread_create", errno: rc)
        }
        return thread
    }
}
