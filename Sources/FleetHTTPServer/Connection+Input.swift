import FleetCore

// Reading and parsing: bytes from the socket become requests for the handler.
extension Connection {
    enum ReadResult { case data, eof, wouldBlock, failed }

    func readOnce() -> ReadResult {
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

    var readingPaused: Bool {
        if case .stopped = readState { return true }
        return slots.count >= Self.maxInFlight || output.count >= Self.outputHighWater
    }

    var isMidRequest: Bool {
        switch readState {
        case .body: return true
        case .head: return !input.isEmpty
        case .stopped: return false
        }
    }

    func processInput() {
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
}
