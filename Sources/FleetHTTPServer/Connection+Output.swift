import FleetCore

// Writing and closing: responses go out in request order, then the connection ends cleanly.
extension Connection {
    func encodeReadyResponses() {
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
    func flushOutput() -> Bool {
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
    func beginClosing() {
        if peerClosedInput { loop.close(self); return }
        try? Sys.shutdownOutput(fd)
        lingerDeadline = MonotonicClock.now() + Self.lingerNanos
        input.clear(keepingUpTo: 0)
        drainWhileLingering()
    }

    func drainWhileLingering() {
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
}
