import FleetCore

/// One client connection: reads and parses requests, hands complete ones to the handler, and
/// writes the responses back in request order.
///
/// Owned by exactly one `EventLoop` and touched only on its thread. Sockets are edge-triggered,
/// so `readReady` remembers that the kernel may still hold bytes we chose not to read yet
/// (back-pressure: too many requests in flight or too much unsent output).
///
/// Reading and parsing are in `Connection+Input.swift`, writing and closing in
/// `Connection+Output.swift`; the state below is internal rather than private only so that
/// those two halves can share it.
final class Connection {
    let fd: Int32
    let id: UInt64
    let remoteAddress: String
    unowned let loop: EventLoop

    let input = ByteBuffer()
    let output = ByteBuffer()

    enum ReadState {
        /// Waiting for (the rest of) a head; `scanFrom` skips bytes already searched for its end.
        case head(scanFrom: Int)
        case body(RequestHead, BodyDecoder)
        /// No further requests will be read: the last one said close, or the input was bad.
        case stopped
    }

    /// One request in flight; its response is written only after all earlier ones.
    struct Slot {
        var response: ServerResponse?
        let keepAlive: Bool
        let isHTTP10: Bool
        let isHEAD: Bool
    }

    var readState = ReadState.head(scanFrom: 0)
    var slots: [Slot] = []
    /// Sequence number of `slots[0]`; respond closures carry their request's number.
    var firstSlotSeq: UInt64 = 0

    var readReady = false
    /// The peer shut down its sending side (EPOLLRDHUP): a short read no longer means drained,
    /// since the end-of-file still has to be read.
    var peerHungUp = false
    private(set) var isClosed = false
    private var driving = false
    var peerClosedInput = false
    var closeAfterOutput = false
    var lingerDeadline: UInt64?
    var lingerDiscarded = 0

    // Monotonic nanoseconds for the timeouts; `headStartedAt == 0` means no head in progress.
    var headStartedAt: UInt64
    var bodyStartedAt: UInt64 = 0
    var lastActivityAt: UInt64
    var lastWriteProgressAt: UInt64

    /// Requests parsed ahead of their responses, at most (pipelining depth).
    static let maxInFlight = 64
    /// Unsent output above which we stop reading new requests.
    static let outputHighWater = 512 * 1024
    /// How long, and how much, we keep reading after sending a closing error response, so that
    /// the client sees our response instead of a reset caused by its unread upload.
    static let lingerNanos: UInt64 = 2_000_000_000
    static let lingerMaxBytes = 4 * 1024 * 1024

    init(fd: Int32, id: UInt64, remoteAddress: String, loop: EventLoop, now: UInt64) {
        self.fd = fd
        self.id = id
        self.remoteAddress = remoteAddress
        self.loop = loop
        headStartedAt = now  // a new connection must send its first head within headerTimeout
        lastActivityAt = now
        lastWriteProgressAt = now
    }

    // MARK: Events from the loop.

    /// Does all the work that is possible now: read, parse, dispatch, write, close.
    func drive() {
        if isClosed || driving { return }
        driving = true
        defer { driving = false }
        while !isClosed {
            if lingerDeadline != nil { drainWhileLingering(); return }
            processInput()
            if isClosed { return }
            encodeReadyResponses()
            guard flushOutput() else { return }
            if output.isEmpty && closeAfterOutput { beginClosing(); return }
            if !readReady || readingPaused { break }
            switch readOnce() {
            case .data: continue
            case .eof: peerClosedInput = true
            case .wouldBlock: break
            case .failed: loop.close(self); return
            }
            break
        }
        if peerClosedInput && !isClosed {
            // The client stopped sending: a partial request is dropped unseen by the handler,
            // complete ones still get their responses before we close.
            if isMidRequest || (slots.isEmpty && output.isEmpty) { loop.close(self) }
        }
    }

    /// A response from the handler, possibly out of order or for a request already answered.
    func receive(seq: UInt64, response: ServerResponse) {
        guard !isClosed, seq >= firstSlotSeq else { return }
        let index = Int(seq - firstSlotSeq)
        guard index < slots.count, slots[index].response == nil else { return }
        slots[index].response = response
        drive()  // no-op while already driving: the running drive() encodes it
    }

    /// Whether a timeout has expired; the loop closes the connection if so.
    func hasTimedOut(now: UInt64, limits: ServerLimits) -> Bool {
        if let deadline = lingerDeadline { return now >= deadline }
        if !output.isEmpty { return elapsed(since: lastWriteProgressAt, now) > limits.idleTimeout }
        if !slots.isEmpty {
            // The handler is working, which is not the client's fault; but a client that has
            // already hung up is not worth holding on to forever for a handler that never answers.
            return peerClosedInput && elapsed(since: lastActivityAt, now) > limits.idleTimeout
        }
        switch readState {
        case .body: return elapsed(since: bodyStartedAt, now) > limits.bodyTimeout
        case .head where headStartedAt != 0: return elapsed(since: headStartedAt, now) > limits.headerTimeout
        default: return elapsed(since: lastActivityAt, now) > limits.idleTimeout
        }
    }

    func markClosed() { isClosed = true }

    /// A client too slow with a request it started (slowloris, a stalled body) is told so with
    /// `408` before the close: one non-blocking send, best effort — a client that is not reading
    /// does not get to hold the connection any longer for it.
    func answerTimeout() {
        guard !isClosed, slots.isEmpty, output.isEmpty, lingerDeadline == nil else { return }
        switch readState {
        case .body: break
        case .head where !input.isEmpty: break
        default: return  // an idle keep-alive connection is simply closed
        }
        let e = HTTPParseError(status: 408, code: "request_timeout", message: "the request did not arrive in time")
        ResponseEncoder.encode(e.response, into: output, closing: true, http10KeepAlive: false, headRequest: false,
                               date: loop.dateCache)
        _ = try? Sys.send(fd, output.readable)
        output.clear()
    }

    @inline(__always)
    func elapsed(since start: UInt64, _ now: UInt64) -> Double {
        now > start ? Double(now - start) / 1e9 : 0
    }
}
