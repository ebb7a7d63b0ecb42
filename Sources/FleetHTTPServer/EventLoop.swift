#if canImport(Glibc)
import Glibc
#endif
import FleetCore
import Synchronization

/// One I/O thread: an epoll set of connections, a wake-up eventfd, and a periodic timeout sweep.
///
/// `@unchecked Sendable`: the connection table, scratch buffer, date cache and acceptor are
/// touched only on this loop's own thread (the acceptor is set before the thread starts); what
/// other threads hand in (responses, adopted sockets, stop) goes through `inbox`, a Mutex.
// @unchecked: `inbox` is a Mutex; the rest is confined to this loop's thread.
final class EventLoop: @unchecked Sendable {
    let handler: any ServerHandler
    let limits: ServerLimits
    private let gate: ConnectionGate
    private let epfd: Int32
    private let wakeFD: Int32

    private struct Inbox {
        var responses: [(connection: UInt64, seq: UInt64, response: ServerResponse)] = []
        var adopted: [(fd: Int32, remote: String)] = []
        var signaled = false
        var stopped = false
    }
    private let inbox = Mutex(Inbox())
    private let threadID = Atomic<UInt>(0)

    // Loop-thread state.
    private var connections: [UInt64: Connection] = [:]
    private var nextConnectionID: UInt64 = 2  // 0 is the eventfd, 1 the listener
    private var spareResponses: [(connection: UInt64, seq: UInt64, response: ServerResponse)] = []
    private var spareAdopted: [(fd: Int32, remote: String)] = []
    let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)
    let dateCache = DateHeaderCache()
    var acceptor: Acceptor?

    static let wakeToken: UInt64 = 0
    static let listenerToken: UInt64 = 1

    init(handler: any ServerHandler, limits: ServerLimits, gate: ConnectionGate) throws(ServerError) {
        self.handler = handler
        self.limits = limits
        self.gate = gate
        epfd = try Sys.epollCreate()
        do {
            wakeFD = try Sys.makeEventFD()
        } catch {
            try? Sys.close(epfd)
            throw error
        }
        do {
            try Sys.epollAdd(epfd, fd: wakeFD, events: Sys.epollIn, token: Self.wakeToken)
        } catch {
            try? Sys.close(epfd)
            try? Sys.close(wakeFD)
            throw error
        }
    }

    deinit {
        // The eventfd outlives the thread: a late `deliver` from another thread may still write it.
        try? Sys.close(wakeFD)
        scratch.deallocate()
    }

    /// Watches the listening socket from this loop (level-triggered: unaccepted sockets re-fire).
    func watchListener(_ fd: Int32) throws(ServerError) {
        try Sys.epollAdd(epfd, fd: fd, events: Sys.epollIn, token: Self.listenerToken)
    }

    func unwatchListener(_ fd: Int32) {
        try? Sys.epollRemove(epfd, fd: fd)
    }

    // MARK: Called from any thread.

    /// Routes a handler's response to its connection; a response for a closed connection is dropped.
    func deliver(connection id: UInt64, seq: UInt64, response: ServerResponse) {
        if threadID.load(ordering: .acquiring) == UInt(pthread_self()) {
            connections[id]?.receive(seq: seq, response: response)
            return
        }
        let wake = inbox.withLock { box -> Bool in
            if box.stopped { return false }
            box.responses.append((id, seq, response))
            return Self.markSignaled(&box)
        }
        if wake { signal() }
    }

    /// Takes over an accepted socket (from the acceptor on another loop).
    func adopt(fd: Int32, remote: String) {
        let (accepted, wake) = inbox.withLock { box -> (Bool, Bool) in
            if box.stopped { return (false, false) }
            box.adopted.append((fd, remote))
            return (true, Self.markSignaled(&box))
        }
        if !accepted {
            try? Sys.close(fd)
            gate.release()
        }
        if wake { signal() }
    }

    func requestStop() {
        inbox.withLock { $0.stopped = true }
        signal()
    }

    private static func markSignaled(_ box: inout Inbox) -> Bool {
        if box.signaled { return false }
        box.signaled = true
        return true
    }

    private func signal() {
        _ = try? Sys.eventFDSignal(wakeFD)
    }

    // MARK: The loop.

    /// The thread body: runs until `requestStop`, then closes every connection.
    func run() {
        threadID.store(UInt(pthread_self()), ordering: .releasing)
        let events = UnsafeMutableBufferPointer<Sys.EpollEvent>.allocate(capacity: 256)
        defer { events.deallocate() }
        let sweepNanos = sweepInterval()
        var nextSweep = MonotonicClock.now() + sweepNanos
        var running = true
        while running {
            let n: Int
            do {
                n = try Sys.epollWait(epfd, into: events, timeoutMillis: Int32(sweepNanos / 1_000_000))
            } catch {
                break  // only EBADF/EINVAL: the loop is unusable; stop serving rather than spin
            }
            for i in 0..<n {
                let flags = events[i].events
                let token = events[i].token
                switch token {
                case Self.wakeToken:
                    running = drainInbox()
                case Self.listenerToken:
                    acceptor?.acceptPending(on: self)
                default:
                    guard let connection = connections[token] else { continue }
                    if flags & Sys.epollErr != 0 {
                        close(connection)
                        continue
                    }
                    if flags & (Sys.epollIn | Sys.epollRdHup | Sys.epollHup) != 0 {
                        connection.readReady = true
                    }
                    if flags & (Sys.epollRdHup | Sys.epollHup) != 0 {
                        connection.peerHungUp = true
                    }
                    connection.drive()
                }
            }
            let now = MonotonicClock.now()
            if now >= nextSweep {
                sweep(now: now)
                nextSweep = now + sweepNanos
            }
        }
        inbox.withLock { $0.stopped = true }
        for connection in Array(connections.values) { close(connection) }
        for (fd, _) in drainAdoptedAfterStop() {
            try? Sys.close(fd)
            gate.release()
        }
        acceptor = nil
        try? Sys.close(epfd)
    }

    /// Registers an accepted socket with this loop (loop thread only).
    func register(fd: Int32, remote: String) {
        let id = nextConnectionID
        nextConnectionID += 1
        let connection = Connection(fd: fd, id: id, remoteAddress: remote, loop: self, now: MonotonicClock.now())
        let interest = Sys.epollIn | Sys.epollOut | Sys.epollRdHup | Sys.epollET
        do {
            try Sys.epollAdd(epfd, fd: fd, events: interest, token: id)
        } catch {
            try? Sys.close(fd)
            gate.release()
            return
        }
        connections[id] = connection
    }

    /// Closes a connection and forgets it; later responses for it are dropped.
    func close(_ connection: Connection) {
        guard !connection.isClosed else { return }
        connection.markClosed()
        connections[connection.id] = nil
        try? Sys.close(connection.fd)  // also removes it from the epoll set
        gate.release()
    }

    /// Returns false when a stop was requested.
    private func drainInbox() -> Bool {
        _ = try? Sys.eventFDDrain(wakeFD)
        let stopped = inbox.withLock { box -> Bool in
            swap(&box.responses, &spareResponses)
            swap(&box.adopted, &spareAdopted)
            box.signaled = false
            return box.stopped
        }
        for (fd, remote) in spareAdopted { register(fd: fd, remote: remote) }
        for item in spareResponses {
            connections[item.connection]?.receive(seq: item.seq, response: item.response)
        }
        spareAdopted.removeAll(keepingCapacity: true)
        spareResponses.removeAll(keepingCapacity: true)
        return !stopped
    }

    private func drainAdoptedAfterStop() -> [(fd: Int32, remote: String)] {
        inbox.withLock { box in
            let left = box.adopted
            box.adopted = []
            box.responses = []
            return left
        }
    }

    private func sweep(now: UInt64) {
        var expired: [Connection] = []
        for connection in connections.values where connection.hasTimedOut(now: now, limits: limits) {
            expired.append(connection)
        }
        for connection in expired {
            connection.answerTimeout()
            close(connection)
        }
        acceptor?.resumeIfPaused(on: self, now: now)
    }

    /// A quarter of the shortest timeout, between 5 ms and 250 ms: timeouts fire within ~25 %.
    private func sweepInterval() -> UInt64 {
        let shortest = min(limits.headerTimeout, limits.idleTimeout, limits.bodyTimeout)
        let seconds = min(max(shortest / 4, 0.005), 0.25)
        return UInt64(seconds * 1e9)
    }
}

/// Counts open connections against `ServerLimits.maxConnections`.
final class ConnectionGate: Sendable {
    let limit: Int
    private let open = Atomic<Int>(0)

    init(limit: Int) { self.limit = limit }

    var count: Int { open.load(ordering: .relaxed) }

    func tryAcquire() -> Bool {
        if open.wrappingAdd(1, ordering: .relaxed).newValue > limit {
            open.wrappingSubtract(1, ordering: .relaxed)
            return false
        }
        return true
    }

    func release() { open.wrappingSubtract(1, ordering: .relaxed) }
}
