import CCurl
import CCurlShim
import Dispatch

/// Starting, finishing and completing transfers; all of it runs on the loop's I/O thread.
extension IOLoop {
    /// Puts a transfer into the multi handle, or completes it at once if it cannot start.
    func start(_ t: HTTPTransfer) {
        if t.isCancelled {
            release(t)  // gives back an upload slot taken for it in `startQueuedUploads`
            complete(t, .failure(HTTPError(kind: .aborted, message: "cancelled before it started")))
            return
        }
        if t.isClipUpload && uploadLimit > 0 && !t.holdsUploadSlot {
            if uploadsSending >= uploadLimit {
                t.waitsForUploadSlot = true
                uploadQueue.append(t)
                uploadsWaiting.wrappingAdd(1, ordering: .relaxed)
                return
            }
            uploadsSending += 1
            t.holdsUploadSlot = true
        }
        guard let easy = idle.popLast() ?? EasyHandle(sourceAddress: sourceAddress, loop: self) else {
            complete(t, .failure(HTTPError(kind: .other, message: "curl_easy_init failed (out of memory?)")))
            return
        }
        t.easy = easy
        if let error = easy.configure(for: t, connectTimeout: connectTimeout) {
            release(t)
            complete(t, .failure(error))
            return
        }
        // The least busy shard: balanced under load, always the first one for a lone user.
        var shard = shards[0]
        for s in shards.dropFirst() where s.running < shard.running { shard = s }
        let code = curl_multi_add_handle(shard.multi, easy.raw)
        guard code == CURLM_OK else {
            release(t)
            complete(t, .failure(HTTPError(kind: .other, message: "curl_multi_add_handle: \(String(cString: curl_multi_strerror(code)))")))
            return
        }
        shard.running += 1
        t.shard = shard
        t.slot = active.count
        active.append(t)
    }

    /// Reads curl's "done" messages and finishes each transfer with its response or error.
    func collectFinished() {
        for shard in shards { collectFinished(shard) }
    }

    private func collectFinished(_ shard: MultiShard) {
        var left: Int32 = 0
        while let msg = curl_multi_info_read(shard.multi, &left) {
            guard msg.pointee.msg == CURLMSG_DONE, let handle = msg.pointee.easy_handle else { continue }
            var privatePointer: UnsafeMutableRawPointer?
            _ = fleet_curl_easy_getinfo_ptr(handle, CURLINFO_PRIVATE, &privatePointer)
            guard let privatePointer else { continue }
            let t = Unmanaged<HTTPTransfer>.fromOpaque(privatePointer).takeUnretainedValue()
            guard let easy = t.easy, t.slot >= 0 else { continue }
            let code = msg.pointee.data.result
            let timings = easy.timings()
            if code == CURLE_OK {
                let response = HTTPResponse(status: easy.status(), rawHeaders: t.rawHeaders, body: t.body, timings: timings)
                finish(t, .success(response))
            } else if var overflow = t.overflow {
                overflow.timings = timings
                finish(t, .failure(overflow))
            } else {
                var message = easy.errorMessage(code)
                var kind = HTTPErrorKind(curlCode: code)
                // curl rejects one header line over its 100 KiB CURL_MAX_HTTP_HEADER as "out of
                // memory" before our own cap sees the line; before any body byte arrived, that is
                // what an out-of-memory from curl is (the bench's allocations are small).
                if code == CURLE_OUT_OF_MEMORY, t.body.isEmpty {
                    kind = .headerTooLarge
                    message = "response header too large (\(message))"
                }
                if code == CURLE_ABORTED_BY_CALLBACK, let cut = t.request.abortUploadAfterBytes {
                    message = "upload cut after \(cut) bytes (\(message))"
                }
                finish(t, .failure(HTTPError(kind: kind, message: message, timings: timings)))
            }
        }
    }

    /// Removes a running transfer from the multi handle and the active list, then completes it.
    func finish(_ t: HTTPTransfer, _ result: Result<HTTPResponse, HTTPError>) {
        let last = active.removeLast()
        if last !== t {
            active[t.slot] = last
            last.slot = t.slot
        }
        t.slot = -1
        if let easy = t.easy, let shard = t.shard {
            curl_multi_remove_handle(shard.multi, easy.raw)
            shard.running -= 1
        }
        t.shard = nil
        release(t)
        complete(t, result)
    }

    /// Returns the easy handle to the pool, frees the header list and the upload slot.
    func release(_ t: HTTPTransfer) {
        if t.holdsUploadSlot {
            t.holdsUploadSlot = false
            uploadsSending -= 1
        }
        if let list = t.headerList { curl_slist_free_all(list) }
        t.headerList = nil
        if let easy = t.easy { idle.append(easy) }
        t.easy = nil
        t.rawHeaders = []
        t.framing = .init()
        t.body = []
    }

    /// Queues the completion; `flushCompletions` hands them to their queues.
    func complete(_ t: HTTPTransfer, _ result: Result<HTTPResponse, HTTPError>) {
        completed.append((t, result))
    }

    /// Hands over this iteration's completions: those sent without a queue run here, on the I/O
    /// thread (they resume a task); the others are dispatched one block per distinct queue
    /// (usually one), so a burst of responses costs one queue wake-up instead of one each.
    func flushCompletions() {
        guard !completed.isEmpty else { return }
        let all = completed
        completed.removeAll(keepingCapacity: true)
        inFlight.wrappingSubtract(all.count, ordering: .relaxed)
        var queued: [(HTTPTransfer, Result<HTTPResponse, HTTPError>)] = []
        for (t, result) in all {
            if t.queue == nil { t.completion(result) } else { queued.append((t, result)) }
        }
        guard let queue = queued.first?.0.queue else { return }
        let batch = queued
        if batch.allSatisfy({ $0.0.queue === queue }) {
            queue.async { for (t, result) in batch { t.completion(result) } }
            return
        }
        var groups: [ObjectIdentifier: [(HTTPTransfer, Result<HTTPResponse, HTTPError>)]] = [:]
        for item in batch { if let q = item.0.queue { groups[ObjectIdentifier(q), default: []].append(item) } }
        for group in groups.values {
            group[0].0.queue?.async { for (t, result) in group { t.completion(result) } }
        }
    }
}

/// The queue of clip uploads waiting for a sending slot (`maxConcurrentUploads`).
extension IOLoop {
    /// Starts waiting uploads, oldest first, while slots are free.
    func startQueuedUploads() {
        while uploadsSending < uploadLimit, let t = nextQueuedUpload() {
            uploadsSending += 1
            t.holdsUploadSlot = true
            start(t)
        }
    }

    /// Takes the oldest upload still waiting off the queue (skipping cancelled ones).
    func nextQueuedUpload() -> HTTPTransfer? {
        while uploadQueueHead < uploadQueue.count {
            let t = uploadQueue[uploadQueueHead]
            uploadQueueHead += 1
            if t.waitsForUploadSlot {
                t.waitsForUploadSlot = false
                uploadsWaiting.wrappingSubtract(1, ordering: .relaxed)
                compactUploadQueue()
                return t
            }
        }
        compactUploadQueue()
        return nil
    }

    /// Completes a cancelled waiting upload at once; its queue entry is skipped later.
    func dropQueuedUpload(_ t: HTTPTransfer) {
        t.waitsForUploadSlot = false
        uploadsWaiting.wrappingSubtract(1, ordering: .relaxed)
        complete(t, .failure(HTTPError(kind: .aborted, message: "cancelled while waiting to upload")))
    }

    /// Drops taken entries once they are half the array, so the queue's memory stays bounded.
    private func compactUploadQueue() {
        if uploadQueueHead == uploadQueue.count {
            uploadQueue.removeAll(keepingCapacity: true)
            uploadQueueHead = 0
        } else if uploadQueueHead > 1024 && uploadQueueHead * 2 > uploadQueue.count {
            uploadQueue.removeFirst(uploadQueueHead)
            uploadQueueHead = 0
        }
    }
}
