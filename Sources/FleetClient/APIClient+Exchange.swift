import FleetCore
import FleetHTTP
import FleetMetrics

/// One HTTP exchange and its record.
extension APIClient {
    struct Exchanged: Sendable {
        var response: HTTPResponse
        var actual: UInt64
        var end: UInt64
        var status: Int { response.status }
        var body: [UInt8] { response.body }
    }

    /// One HTTP exchange; cancelling the task cancels the transfer (an app kill). Failures carry
    /// when the transfer started and ended in `ExchangeFailure`.
    func exchange(_ request: HTTPRequest, template name: String, intended: UInt64) async -> Result<Exchanged, ExchangeFailure> {
        let actual = MonotonicClock.now()
        let holder = TransferHolder()
        let engine = self.engine, queue = self.queue
        let result: Result<HTTPResponse, HTTPError> = await withTaskCancellationHandler {
            await withCheckedContinuation { (c: CheckedContinuation<Result<HTTPResponse, HTTPError>, Never>) in
                holder.set(engine.send(request, queue: queue) { c.resume(returning: $0) })
            }
        } onCancel: {
            holder.cancel()
        }
        let end = MonotonicClock.now()
        if let trace = RequestScope.trace {
            trace.append(name, status: { if case let .success(r) = result { return r.status } else { return nil } }())
        }
        switch result {
        case let .success(r): return .success(Exchanged(response: r, actual: actual, end: end))
        case let .failure(e): return .failure(ExchangeFailure(error: e, actual: actual, end: end))
        }
    }

    /// Records one exchange under its endpoint with the verdict on it: a 2xx the client could not
    /// use is an error of its kind (`bad_json`, …), not a success.
    func record<T>(_ name: String, intended: UInt64, outcome: Result<Exchanged, ExchangeFailure>, verdict: Result<T, APIError>) {
        let template = RequestScope.endpointPrefix + name
        switch outcome {
        case let .success(r):
            var code: String? = nil, message: String? = nil
            if case let .failure(e) = verdict { code = e.code; message = e.message }
            recorder.recordRequest(template, intended: intended, actual: r.actual, end: r.end, status: r.status,
                                   errorCode: code, message: message, breakdown: r.response.timings,
                                   isError: code != nil || r.status >= 400)
        case let .failure(f):
            // A transfer dropped by a kill is the app's doing, not the server's: not an HTTP error.
            if f.error.kind == .aborted { recorder.count("aborted_requests"); return }
            recorder.recordRequest(template, intended: intended, actual: f.actual, end: f.end, status: nil,
                                   errorCode: f.error.kind.rawValue, message: ServerText.message(f.error.message),
                                   breakdown: f.error.timings)
        }
    }
}

/// A transfer that produced no response, with when it started and ended.
struct ExchangeFailure: Error, Sendable {
    var error: HTTPError
    var actual: UInt64
    var end: UInt64
}

/// Holds the transfer of a call so that task cancellation can drop it.
final class TransferHolder: @unchecked Sendable {
    private let lock = Lock()
    private var transfer: HTTPTransfer?
    private var cancelled = false

    func set(_ t: HTTPTransfer) {
        lock.withLock {
            transfer = t
            if cancelled { t.cancel() }
        }
    }

    func cancel() {
        lock.withLock {
            cancelled = true
            transfer?.cancel()
        }
    }
}
