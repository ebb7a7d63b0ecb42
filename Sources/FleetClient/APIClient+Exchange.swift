import FleetCore
import FleetHTTP
import FleetMetrics
import Synchronization

/// One HTTP exchange and its record.
extension APIClient {
    struct Exchanged: Sendable {
        var response: HTTPResponse
        var actual: UInt64
        var end: UInt64
        var status: Int { response.status }
        var body: [UInt8] { response.body }
        /// The body parsed as JSON, when the observer already needed it (nil = not parsed yet):
        /// `judge` then uses it instead of parsing the same bytes a second time.
        var parsed: Result<JSONValue, JSONParseError>?
    }

    /// What the observer (`RequestContext.observer`) is told about a request besides the HTTP request.
    struct Sent: Sendable {
        var path: String
        var json: JSONValue?
        var key: String?
        /// The path's `{id}` as the call had it (`CallPath.id`), for `Exchange.pathID`.
        var id: String?
    }

    /// One HTTP exchange; cancelling the task cancels the transfer (an app kill). Failures carry
    /// when the transfer started and ended in `ExchangeFailure`. The task's observer, if any,
    /// hears of it before it goes out and once it ended.
    @inline(never)  // see APIClient.attempts: an inlined async callee's frame adds to its caller's
    func exchange(_ request: HTTPRequest, route: Route, intended: UInt64, sent: Sent,
                  context: RequestContext) async -> Result<Exchanged, ExchangeFailure> {
        let observer = context.observer
        let actual = MonotonicClock.now()
        observer?.willSend(route: route, path: sent.path, body: sent.json, at: actual)
        let holder = TransferHolder()
        let engine = self.engine, queue = self.queue
        func send(_ c: CheckedContinuation<Result<HTTPResponse, HTTPError>, Never>) {
            holder.set(engine.send(request, queue: queue) { c.resume(returning: $0) })
        }
        let result: Result<HTTPResponse, HTTPError>
        if let scope = context.transfers, scope.ownedByCurrentTask {
            // Registered before it is sent: a cancel between the two finds it.
            scope.register(holder)
            result = await withCheckedContinuation(send)
            scope.unregister(holder)
        } else {
            result = await withTaskCancellationHandler {
                await withCheckedContinuation(send)
            } onCancel: {
                holder.cancel()
            }
        }
        return Self.ended(result, route: route, sent: sent, intended: intended, actual: actual, observer: observer,
                          trace: context.trace)
    }

    /// The synchronous half of `exchange`, after the answer: trace, observer, result. Kept out of
    /// the async function so that its temporaries live on the thread's stack, not in the task's
    /// frame (see `attempts`).
    @inline(never)
    static func ended(_ result: Result<HTTPResponse, HTTPError>, route: Route, sent: Sent, intended: UInt64,
                      actual: UInt64, observer: (any ExchangeObserver)?, trace: RequestTrace?) -> Result<Exchanged, ExchangeFailure> {
        let end = MonotonicClock.now()
        if let trace {
            trace.append(route.rawValue, status: { if case let .success(r) = result { return r.status } else { return nil } }())
        }
        // With an observer, the answer is parsed once here and shared with `judge`.
        var parsed: Result<JSONValue, JSONParseError>?
        if let observer {
            if case let .success(r) = result, !r.body.isEmpty {
                parsed = Result { () throws(JSONParseError) in try JSONValue.parse(r.body) }
            }
            observer.exchanged(exchangeSeen(route, sent: sent, result: result, parsed: parsed, intended: intended,
                                            actual: actual, end: end))
        }
        switch result {
        case let .success(r): return .success(Exchanged(response: r, actual: actual, end: end, parsed: parsed))
        case let .failure(e): return .failure(ExchangeFailure(error: e, actual: actual, end: end))
        }
    }

    /// The observer's view of one exchange, with the answer as parsed once by `exchange`
    /// (`parsed`; nil parses it here).
    static func exchangeSeen(_ route: Route, sent: Sent, result: Result<HTTPResponse, HTTPError>,
                             parsed: Result<JSONValue, JSONParseError>? = nil,
                             intended: UInt64, actual: UInt64, end: UInt64) -> Exchange {
        // The answer's parts first, then the exchange made once: made empty and filled in field by
        // field, it was copied twice and destroyed three times an exchange (~800 instructions).
        var status: Int?, body: JSONValue?, rawBody: [UInt8] = [], serverDateMs: Int64?
        if case let .success(r) = result {
            status = r.status
            rawBody = r.body
            if !r.body.isEmpty { body = try? (parsed ?? Result { () throws(JSONParseError) in try JSONValue.parse(r.body) }).get() }
            serverDateMs = r.withHeader("Date") { $0.flatMap(HTTPDate.parseMillis) }
        }
        var e = Exchange(route: route, path: sent.path, requestBody: sent.json, idempotencyKey: sent.key, status: status,
                         body: body, rawBody: rawBody, intended: intended, sent: actual, received: end, serverDateMs: serverDateMs)
        e.knownPathID = sent.id
        return e
    }

    /// The same request `copies + 1` times at once (a double tap); the app goes on with the first
    /// copy's answer, and every copy is observed. The caller records the others.
    @inline(never)  // see APIClient.attempts: an inlined async callee's frame adds to its caller's
    func tapped(_ request: HTTPRequest, route: Route, intended: UInt64, sent: Sent,
                copies: Int, context: RequestContext) async -> [Result<Exchanged, ExchangeFailure>] {
        recorder.count(.doubleTaps)
        return await withTaskGroup(of: (Int, Result<Exchanged, ExchangeFailure>).self) { group in
            for i in 0...copies {
                group.addTask { (i, await self.exchange(request, route: route, intended: intended, sent: sent, context: context)) }
            }
            var all: [(Int, Result<Exchanged, ExchangeFailure>)] = []
            for await r in group { all.append(r) }
            return all.sorted { $0.0 < $1.0 }.map(\.1)
        }
    }

    /// Records one exchange under its endpoint with the verdict on it: a 2xx the client could not
    /// use is an error of its kind (`bad_json`, …), not a success.
    func record<T>(_ name: String, scope: EndpointLabel.Scope?, intended: UInt64, outcome: Result<Exchanged, ExchangeFailure>,
                   verdict: Result<T, APIError>) {
        let template = scope.map { $0.rawValue + name } ?? name
        switch outcome {
        case let .success(r):
            var code: String? = nil, message: String? = nil
            if case let .failure(e) = verdict { code = e.code; message = e.message }
            recorder.recordRequest(template, intended: intended, actual: r.actual, end: r.end, status: r.status,
                                   errorCode: code, message: message, breakdown: r.response.timings,
                                   isError: code != nil || r.status >= 400)
        case let .failure(f):
            // A transfer dropped by a kill is the app's doing, not the server's: not an HTTP error.
            if f.error.kind == .aborted { recorder.count(.abortedRequests); return }
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
final class TransferHolder: Sendable {
    private let state = Mutex<(transfer: HTTPTransfer?, cancelled: Bool)>((nil, false))

    func set(_ t: HTTPTransfer) {
        state.withLock { s in
            s.transfer = t
            if s.cancelled { t.cancel() }
        }
    }

    func cancel() {
        state.withLock { s in
            s.cancelled = true
            s.transfer?.cancel()
        }
    }
}
