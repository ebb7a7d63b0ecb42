import CCurl
import CCurlShim
import Dispatch
import Foundation
import Synchronization

/// One I/O thread owning one libcurl multi handle and every transfer running on it.
///
/// Other threads only append to the locked submission and cancel lists and call
/// `curl_multi_wakeup` (the one multi call libcurl allows from any thread). The thread loops:
/// take submissions → start them, apply cancels, `curl_multi_perform`, finish what completed,
/// `curl_multi_poll` until a socket is ready, a curl timer fires or a wakeup arrives.
///
/// `@unchecked Sendable`: `pending` is a Mutex; `multi`, `active` and `idle` are touched only by
/// the I/O thread (and by `init`/`deinit`, when no thread runs).
final class IOLoop: @unchecked Sendable {
    private struct Pending {
        var submissions: [HTTPTransfer] = []
        var cancels: [HTTPTransfer] = []
        var stopping = false
    }

    private let multi: UnsafeMutableRawPointer
    private let pending = Mutex(Pending())
    private let connectTimeout: Double
    private let exited = DispatchSemaphore(value: 0)
    /// Transfers submitted to this loop and not yet completed.
    let inFlight = Atomic<Int>(0)

    private var active: [HTTPTransfer] = []
    private var idle: [EasyHandle] = []

    init(configuration: HTTPEngine.Configuration, index: Int) throws {
        guard let m = curl_multi_init() else {
            throw HTTPError(kind: .other, message: "curl_multi_init failed (out of memory?)")
        }
        multi = m
        connectTimeout = configuration.connectTimeout
        let options: [(CURLMoption, Int, String)] = [
            (CURLMOPT_MAX_TOTAL_CONNECTIONS, configuration.maxConnections, "maxConnections"),
            (CURLMOPT_MAX_HOST_CONNECTIONS, configuration.maxConnectionsPerHost, "maxConnectionsPerHost"),
            (CURLMOPT_MAXCONNECTS, configuration.connectionCacheSize, "connectionCacheSize"),
        ]
        for (option, value, name) in options where value > 0 {
            let code = fleet_curl_multi_setopt_long(m, option, value)
            if code != CURLM_OK {
                curl_multi_cleanup(m)
                throw HTTPError(kind: .other, message: "\(name) = \(value) refused by libcurl: \(String(cString: curl_multi_strerror(code)))")
            }
        }
        let thread = Thread { [self] in run() }
        thread.name = "fleet-http-io-\(index)"
        thread.start()
    }

    deinit {
        idle.removeAll()
        curl_multi_cleanup(multi)
    }

    // MARK: Any thread.

    /// Queues a transfer for the I/O thread; false when the loop is stopping (caller aborts it).
    func submit(_ transfer: HTTPTransfer) -> Bool {
        // Counted before it becomes visible to the I/O thread, so the count never goes negative.
        inFlight.wrappingAdd(1, ordering: .relaxed)
        let accepted = pending.withLock { p -> Bool in
            if p.stopping { return false }
            p.submissions.append(transfer)
            return true
        }
        if accepted {
            curl_multi_wakeup(multi)
        } else {
            inFlight.wrappingSubtract(1, ordering: .relaxed)
        }
        return accepted
    }

    func requestCancel(_ transfer: HTTPTransfer) {
        pending.withLock { $0.cancels.append(transfer) }
        curl_multi_wakeup(multi)
    }

    /// Stops the thread after aborting everything pending, and waits for it to exit.
    func stop() {
        let first = pending.withLock { p -> Bool in
            defer { p.stopping = true }
            return !p.stopping
        }
        guard first else { return }
        curl_multi_wakeup(multi)
        exited.wait()
    }

    // MARK: I/O thread.

    private func run() {
        var submissions: [HTTPTransfer] = []
        var cancels: [HTTPTransfer] = []
        var stopping = false
        while !stopping {
            pending.withLock { p in
                swap(&submissions, &p.submissions)
                swap(&cancels, &p.cancels)
                stopping = p.stopping
            }
            for t in submissions { start(t) }
            submissions.removeAll(keepingCapacity: true)
            for t in cancels where t.slot >= 0 {
                finish(t, .failure(HTTPError(kind: .aborted, message: "cancelled", timings: t.easy?.timings())))
            }
            cancels.removeAll(keepingCapacity: true)
            if stopping { break }
            var running: Int32 = 0
            _ = curl_multi_perform(multi, &running)
            collectFinished()
            _ = curl_multi_poll(multi, nil, 0, 1000, nil)
        }
        // Shutdown: whatever arrived last and whatever is running ends as aborted.
        let late = pending.withLock { p -> [HTTPTransfer] in
            defer { p.submissions.removeAll() }
            return p.submissions
        }
        for t in late { complete(t, .failure(HTTPError(kind: .aborted, message: "engine shut down"))) }
        while let t = active.last {
            finish(t, .failure(HTTPError(kind: .aborted, message: "engine shut down", timings: t.easy?.timings())))
        }
        exited.signal()
    }

    /// Puts a transfer into the multi handle, or completes it at once if it cannot start.
    private func start(_ t: HTTPTransfer) {
        if t.isCancelled {
            complete(t, .failure(HTTPError(kind: .aborted, message: "cancelled before it started")))
            return
        }
        guard let easy = idle.popLast() ?? EasyHandle() else {
            complete(t, .failure(HTTPError(kind: .other, message: "curl_easy_init failed (out of memory?)")))
            return
        }
        t.easy = easy
        if let error = easy.configure(for: t, connectTimeout: connectTimeout) {
            release(t)
            complete(t, .failure(error))
            return
        }
        let code = curl_multi_add_handle(multi, easy.raw)
        guard code == CURLM_OK else {
            release(t)
            complete(t, .failure(HTTPError(kind: .other, message: "curl_multi_add_handle: \(String(cString: curl_multi_strerror(code)))")))
            return
        }
        t.slot = active.count
        active.append(t)
    }

    private func collectFinished() {
        var left: Int32 = 0
        while let msg = curl_multi_info_read(multi, &left) {
            guard msg.pointee.msg == CURLMSG_DONE, let handle = msg.pointee.easy_handle else { continue }
            var privatePointer: UnsafeMutableRawPointer?
            _ = fleet_curl_easy_getinfo_ptr(handle, CURLINFO_PRIVATE, &privatePointer)
            guard let privatePointer else { continue }
            let t = Unmanaged<HTTPTransfer>.fromOpaque(privatePointer).takeUnretainedValue()
            guard let easy = t.easy else { continue }
            let code = msg.pointee.data.result
            let timings = easy.timings()
            if code == CURLE_OK {
                let response = HTTPResponse(status: easy.status(), headers: t.responseHeaders, body: t.body, timings: timings)
                finish(t, .success(response))
            } else if let overflow = t.overflow {
                finish(t, .failure(HTTPError(kind: .other, message: overflow, timings: timings)))
            } else {
                var message = easy.errorMessage(code)
                if code == CURLE_ABORTED_BY_CALLBACK, let cut = t.request.abortUploadAfterBytes {
                    message = "upload cut after \(cut) bytes (\(message))"
                }
                finish(t, .failure(HTTPError(kind: HTTPErrorKind(curlCode: code), message: message, timings: timings)))
            }
        }
    }

    /// Removes a running transfer from the multi handle and the active list, then completes it.
    private func finish(_ t: HTTPTransfer, _ result: Result<HTTPResponse, HTTPError>) {
        let last = active.removeLast()
        if last !== t {
            active[t.slot] = last
            last.slot = t.slot
        }
        t.slot = -1
        if let easy = t.easy { curl_multi_remove_handle(multi, easy.raw) }
        release(t)
        complete(t, result)
    }

    /// Returns the easy handle to the pool and frees the header list.
    private func release(_ t: HTTPTransfer) {
        if let list = t.headerList { curl_slist_free_all(list) }
        t.headerList = nil
        if let easy = t.easy { idle.append(easy) }
        t.easy = nil
        t.responseHeaders = []
        t.body = []
    }

    private func complete(_ t: HTTPTransfer, _ result: Result<HTTPResponse, HTTPError>) {
        inFlight.wrappingSubtract(1, ordering: .relaxed)
        let completion = t.completion
        t.queue.async { completion(result) }
    }
}
