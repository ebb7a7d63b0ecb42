#if canImport(Glibc)
import Glibc
#endif
import FleetCore

/// One client connection: reads and parses requests, hands complete ones to the handler, and
/// writes the responses back in request order.
///
/// Owned by exactly one `EventLoop` and touched only on its thread. Sockets are edge-triggered,
/// so `readReady` remembers that the kernel may still hold bytes we chose not to read yet
/// (back-pressure: too many requests in flight or too much unsent output).
final class Connection {
    let fd: Int32
    let id: UInt64
    let remoteAddress: String
    private unowned let loop: EventLoop

    private let input = ByteBuffer()
    private let output = ByteBuffer()

    private enum ReadState {
        /// Waiting for (the rest of) a head; `scanFrom` skips bytes already searched for its end.
        case head(scanFrom: Int)
        case body(RequestHead, BodyDecoder)
        /// No further requests will be read: the last one said close, or the input was bad.
        case stopped
    }

    /// One request in flight; its response is written only after all earlier ones.
    private struct Slot {
        var response: ServerResponse?
        let keepAlive: Bool
        let isHTTP10: Bool
        let isHEAD: Bool
    }

    private var readState = ReadState.head(scanFrom: 0)
    private var slots: [Slot] = []
    /// Sequence number of `slots[0]`; respond closures carry their request's number.
    private var firstSlotSeq: UInt64 = 0

    var readReady = false
    /// The peer shut down its sending side (EPOLLRDHUP): a short read no longer means drained,
    /// since the end-of-file still has to be read.
    var peerHungUp = false
    private(set) var isClosed = false
    private var driving = false
    private var peerClosedInput = false
    private var closeAfterOutput = false
    private var lingerDeadline: UInt64?
    private var lingerDiscarded = 0

    // Monotonic nanoseconds for the timeouts; `headStartedAt == 0` means no head in progress.
    private var headStartedAt: UInt64
    private var bodyStartedAt: UInt64 = 0
    private var lastActivityAt: UInt64
    private var lastWriteProgressAt: UInt64

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

    // MARK: Reading and parsing.

    private enum ReadResult { case data, eof, wouldBlock, failed }

    private func readOnce() -> ReadResult {
        let scratch = loop.scratch
        let result: Sys.IOResult
        do {
            result = try Sys.recv(fd, into: scratch)
        } catch {
            readReady = false
            return .failed
        }
        switch result {
        case .processed(0):
            readReady = false
            return .eof
        case .processed(let n):
            input.append(UnsafeRawBufferPointer(rebasing: scratch[0..<n]))
            lastActivityAt = MonotonicClock.now()
            // A short read drained the socket; edge-triggered epoll reports the next bytes.
            if n < scratch.count && !peerHungUp { readReady = false }
            return .data
        case .wouldBlock:
            readReady = false
            return .wouldBlock
        }
    }

    private var readingPaused: Bool {
        if case .stopped = readState { return true }
        return slots.count >= Self.maxInFlight || output.count >= Self.outputHighWater
    }

    private var isMidRequest: Bool {
        switch readState {
        case .body: return true
        case .head: return !input.isEmpty
        case .stopped: return false
        }
    }

    private func processInput() {
        let limits = loop.limits
        while !isClosed && slots.count < Self.maxInFlight {
            switch readState {
            case .stopped:
                return
            case .head(let scanFrom):
                if scanFrom == 0 { skipBlankLines() }
                if input.isEmpty { return }
                if headStartedAt == 0 { headStartedAt = MonotonicClock.now() }
                let (length, resume) = RequestHead.findEnd(in: input.readable, from: scanFrom)
                guard let length else {
                    if input.count > limits.maxHeaderBytes { return fail(.headerTooLarge(limit: limits.maxHeaderBytes)) }
                    readState = .head(scanFrom: resume)
                    return
                }
                if length > limits.maxHeaderBytes { return fail(.headerTooLarge(limit: limits.maxHeaderBytes)) }
                let head: RequestHead
                do {
                    head = try RequestHead.parse(UnsafeRawBufferPointer(rebasing: input.readable[0..<length]))
                } catch {
                    return fail(error)
                }
                input.consume(length)
                headStartedAt = 0
                if head.framing == .none {
                    dispatch(head, body: [])
                    continue
                }
                let limit = loop.handler.bodyLimit(method: head.method, path: head.path)
                let decoder: BodyDecoder
                do { decoder = try BodyDecoder(framing: head.framing, limit: limit) } catch { return fail(error) }
                if head.expectsContinue && slots.isEmpty {
                    ResponseEncoder.encodeContinue(into: output)
                }
                bodyStartedAt = MonotonicClock.now()
                readState = .body(head, decoder)
            case .body(let head, var decoder):
                if input.isEmpty { return }
                readState = .stopped  // drop the enum's reference so the body array is not copied
                do {
                    input.consume(try decoder.feed(input.readable))
                } catch {
                    return fail(error)
                }
                if decoder.isDone {
                    dispatch(head, body: decoder.takeBody())
                } else {
                    readState = .body(head, decoder)
                    return
                }
            }
        }
    }

    /// RFC 9112 §2.2: ignore empty lines before a request line (some clients send a CRLF
    /// after a POST body).
    private func skipBlankLines() {
        let bytes = input.readable
        var n = 0
        while n < bytes.count && (bytes[n] == 0x0D || bytes[n] == 0x0A) { n += 1 }
        if n > 0 { input.consume(n) }
    }

    private func dispatch(_ head: RequestHead, body: [UInt8]) {
        let seq = firstSlotSeq + UInt64(slots.count)
        slots.append(Slot(response: nil, keepAlive: head.keepAlive, isHTTP10: head.isHTTP10, isHEAD: head.isHEAD))
        readState = head.keepAlive ? .head(scanFrom: 0) : .stopped
        let request = ServerRequest(method: head.method, target: head.target, path: head.path,
                                    query: head.query, headers: head.headers, body: body,
                                    remoteAddress: remoteAddress)
        let loop = self.loop
        let id = self.id
        loop.handler.handle(request) { response in
            loop.deliver(connection: id, seq: seq, response: response)
        }
    }

    /// Answers a request we refuse with the error envelope, then closes after it.
    private func fail(_ error: HTTPParseError) {
        readState = .stopped
        slots.append(Slot(response: error.response, keepAlive: false, isHTTP10: false, isHEAD: false))
    }

    // MARK: Writing and closing.

    private func encodeReadyResponses() {
        var done = 0
        while done < slots.count, let response = slots[done].response {
            let slot = slots[done]
            ResponseEncoder.encode(response, into: output, closing: !slot.keepAlive,
                                   http10KeepAlive: slot.isHTTP10 && slot.keepAlive,
                                   headRequest: slot.isHEAD, date: loop.dateCache)
            done += 1
            if !slot.keepAlive {
                closeAfterOutput = true
                break
            }
        }
        guard done > 0 else { return }
        slots.removeFirst(done)
        firstSlotSeq += UInt64(done)
        let now = MonotonicClock.now()
        lastActivityAt = now
        lastWriteProgressAt = now
        // Bytes of the next head that arrived while we waited on the handler start their clock now.
        if slots.isEmpty && headStartedAt != 0 { headStartedAt = now }
    }

    /// Sends as much output as the socket takes; false when the connection died and was closed.
    private func flushOutput() -> Bool {
        while !output.isEmpty {
            switch try? Sys.send(fd, output.readable) {
            case .processed(let n) where n > 0:
                output.consume(n)
                lastWriteProgressAt = MonotonicClock.now()
            case .wouldBlock:
                return true
            case .processed, nil:  // nothing taken, or the connection failed
                loop.close(self)
                return false
            }
        }
        output.clear()
        return true
    }

    /// After the last response: close at once if the client is done sending, otherwise half-close
    /// and keep draining its input for a moment (a lingering close, as web servers do).
    private func beginClosing() {
        if peerClosedInput { loop.close(self); return }
        try? Sys.shutdownOutput(fd)
        lingerDeadline = MonotonicClock.now() + Self.lingerNanos
        input.clear(keepingUpTo: 0)
        drainWhileLingering()
    }

    private func drainWhileLingering() {
        let scratch = loop.scratch
        while readReady && !isClosed {
            switch try? Sys.recv(fd, into: scratch) {
            case .processed(let n) where n > 0:
                lingerDiscarded += n
                if lingerDiscarded > Self.lingerMaxBytes { loop.close(self) }
            case .wouldBlock:
                readReady = false
                return
            case .processed, nil:
                loop.close(self)  // EOF or error: the client has our response or is gone
            }
        }
    }

    @inline(__always)
    private func elapsed(since start: UInt64, _ now: UInt64) -> Double {
        now > start ? Double(now - start) / 1e9 : 0
    }
}
