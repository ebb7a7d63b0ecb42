import Dispatch
import FleetCore
import FleetHTTP
import FleetMetrics

/// A successful response: status, parsed JSON body (`.null` when empty), and when it ended.
public struct APIResponse: Sendable {
    public var status: Int
    public var body: JSONValue
    public var end: UInt64
}

public typealias APIResult = Result<APIResponse, APIError>

/// The app's networking layer: typed calls over the HTTP engine with the client behaviour of the
/// state matrix (refresh once on 401, wait out 429, retry network errors and 5xx with capped
/// exponential backoff and jitter under the same Idempotency-Key), recording every exchange.
///
/// One instance serves the whole fleet; per-user state lives in `Credentials`. Every exchange is
/// recorded under its endpoint template with the instant it was *meant* to start, so that a slow
/// generator shows up as scheduling lag rather than as a faster server.
public final class APIClient: Sendable {
    public let settings: ClientSettings
    public let engine: HTTPEngine
    public let recorder: Recorder
    private let queue = DispatchQueue(label: "fleet.client.completions", attributes: .concurrent)

    public init(settings: ClientSettings, engine: HTTPEngine, recorder: Recorder) {
        self.settings = settings
        self.engine = engine
        self.recorder = recorder
    }

    /// One logical API call, with retries. `template` names the endpoint in reports
    /// (`"GET /attempts/{id}"`); `path` is the concrete path under the base URL.
    public func call(_ template: String, path: String, body: JSONValue? = nil, idempotencyKey: String? = nil,
                     credentials: Credentials?, intended: UInt64, random: inout SeededRandom) async -> APIResult {
        let method = String(template.prefix { $0 != " " })
        let url = settings.baseURL + path
        var intendedStart = intended
        var refreshed = false
        var retries = 0
        var rateLimitWaits = 0
        let bodyBytes = body.map { HTTPBody(bytes: $0.serializedBytes()) }
        // A double tap (bug hunt): the first send of a tapped call goes out `copies` times at once.
        var tapCopies = 0
        if let taps = RequestScope.taps, taps.templates.contains(template), random.chance(taps.rate) { tapCopies = taps.copies - 1 }
        while true {
            var headers = [HTTPHeader("Accept", "application/json")]
            if let c = credentials {
                headers.append(HTTPHeader("Accept-Language", c.locale))
                if let t = c.accessToken { headers.append(HTTPHeader("Authorization", "Bearer \(t)")) }
            }
            if bodyBytes != nil { headers.append(HTTPHeader("Content-Type", "application/json; charset=utf-8")) }
            if let k = idempotencyKey { headers.append(HTTPHeader("Idempotency-Key", k)) }
            let request = HTTPRequest(method: method, url: url, headers: headers, body: bodyBytes,
                                      timeout: settings.requestTimeout)
            let sent = Sent(path: path, json: body, key: idempotencyKey)
            let outcome: Result<Exchanged, HTTPError>
            if tapCopies > 0 {
                outcome = await tapped(request, template: template, intended: intendedStart, sent: sent, copies: tapCopies)
                tapCopies = 0
            } else {
                outcome = await exchange(request, template: template, intended: intendedStart, sent: sent)
            }
            switch outcome {
            case let .success(r) where (200..<300).contains(r.status):
                if r.body.isEmpty { return .success(APIResponse(status: r.status, body: .null, end: r.end)) }
                guard let json = try? JSONValue.parse(r.body) else {
                    return .failure(.badResponse("\(template): response body is not JSON", status: r.status))
                }
                return .success(APIResponse(status: r.status, body: json, end: r.end))
            case let .success(r):
                let e = APIError.from(response: r.response)
                if r.status == 401, !refreshed, let c = credentials, c.refreshToken != nil, template != "POST /auth/refresh" {
                    refreshed = true
                    if case .failure(let re) = await refresh(c, intended: MonotonicClock.now(), random: &random) {
                        return .failure(re)
                    }
                    intendedStart = MonotonicClock.now()
                    continue
                }
                if r.status == 429, rateLimitWaits < settings.maxRateLimitWaits {
                    rateLimitWaits += 1
                    intendedStart = MonotonicClock.now() &+ UInt64((e.retryAfter ?? 1) * 1e9)
                    guard await Pause.until(intendedStart) else { return .failure(Self.aborted(template)) }
                    continue
                }
                if r.status >= 500, e.retryable || r.status != 501, retries < settings.maxRetries {
                    retries += 1
                    intendedStart = backoff(retries, retryAfter: e.retryAfter, random: &random)
                    recorder.count("retries")
                    guard await Pause.until(intendedStart) else { return .failure(Self.aborted(template)) }
                    continue
                }
                return .failure(e)
            case let .failure(e):
                if e.kind == .aborted || Task.isCancelled { return .failure(APIError.from(transport: e)) }
                if retries < settings.maxRetries {
                    retries += 1
                    intendedStart = backoff(retries, retryAfter: nil, random: &random)
                    recorder.count("retries")
                    guard await Pause.until(intendedStart) else { return .failure(Self.aborted(template)) }
                    continue
                }
                return .failure(APIError.from(transport: e))
            }
        }
    }

    /// `POST /auth/refresh`; on success the credentials hold the new tokens.
    public func refresh(_ c: Credentials, intended: UInt64, random: inout SeededRandom) async -> APIResult {
        guard let token = c.refreshToken else {
            return .failure(APIError(status: 401, code: "unauthorized", message: "no refresh token", retryable: false))
        }
        let r = await call("POST /auth/refresh", path: "/auth/refresh", body: ["refresh_token": .string(token)],
                           credentials: nil, intended: intended, random: &random)
        if case let .success(resp) = r {
            guard let access = resp.body["access_token"]?.string else {
                return .failure(.badResponse("refresh: no access_token", status: resp.status))
            }
            c.accessToken = access
            if let rt = resp.body["refresh_token"]?.string { c.refreshToken = rt }
        }
        return r
    }

    /// Uploads bytes to a presigned URL (absolute; may be another host). Recorded as `PUT upload`.
    /// `abortAfterBytes` cuts the transfer mid-body, as a lost network would.
    public func upload(url: String, method: String, headers: [HTTPHeader], body: HTTPBody, abortAfterBytes: Int? = nil,
                       intended: UInt64) async -> Result<UInt64, APIError> {
        var request = HTTPRequest(method: method, url: url, headers: headers, body: body, timeout: settings.uploadTimeout)
        request.abortUploadAfterBytes = abortAfterBytes
        let path = url.firstIndex(of: "/").map { i -> String in
            // the path of an absolute URL, for traces: after "scheme://host"
            let rest = url[i...].dropFirst(2)
            return rest.firstIndex(of: "/").map { String(rest[$0...].prefix { $0 != "?" }) } ?? "/"
        } ?? url
        switch await exchange(request, template: "\(method) upload", intended: intended, sent: Sent(path: path, json: nil, key: nil)) {
        case let .success(r) where (200..<300).contains(r.status): return .success(r.end)
        case let .success(r): return .failure(APIError.from(response: r.response))
        case let .failure(e): return .failure(APIError.from(transport: e))
        }
    }

    // MARK: Exchange and recording

    struct Exchanged: Sendable {
        var response: HTTPResponse
        var end: UInt64
        var status: Int { response.status }
        var body: [UInt8] { response.body }
    }

    /// What the observer is told about a request besides the HTTP request itself.
    struct Sent: Sendable {
        var path: String
        var json: JSONValue?
        var key: String?
    }

    /// The same request `copies + 1` times at once; the app goes on with the first copy's answer
    /// (every copy is recorded and observed).
    private func tapped(_ request: HTTPRequest, template: String, intended: UInt64, sent: Sent,
                        copies: Int) async -> Result<Exchanged, HTTPError> {
        recorder.count("double_taps")
        return await withTaskGroup(of: (Int, Result<Exchanged, HTTPError>).self) { group in
            for i in 0...copies {
                group.addTask { (i, await self.exchange(request, template: template, intended: intended, sent: sent)) }
            }
            var first: Result<Exchanged, HTTPError>?
            for await (i, r) in group where i == 0 { first = r }
            return first!
        }
    }

    /// One HTTP exchange, recorded; cancelling the task cancels the transfer (an app kill).
    private func exchange(_ request: HTTPRequest, template name: String, intended: UInt64, sent: Sent) async -> Result<Exchanged, HTTPError> {
        let template = RequestScope.endpointPrefix + name
        let observer = RequestScope.observer
        let actual = MonotonicClock.now()
        observer?.willSend(template: name, path: sent.path, body: sent.json, at: actual)
        let holder = TransferHolder()
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
        if let observer { observer.exchanged(Self.exchangeSeen(name, sent: sent, result: result, intended: intended, actual: actual, end: end)) }
        switch result {
        case let .success(r):
            var code: String? = nil
            var message: String? = nil
            if r.status >= 400 {
                let e = APIError.from(response: r)
                code = e.code
                message = e.message
            }
            recorder.recordRequest(template, intended: intended, actual: actual, end: end, status: r.status,
                                   errorCode: code, message: message, breakdown: r.timings)
            return .success(Exchanged(response: r, end: end))
        case let .failure(e):
            // A transfer dropped by a kill is the app's doing, not the server's: not an HTTP error.
            if e.kind == .aborted { recorder.count("aborted_requests") } else {
                recorder.recordRequest(template, intended: intended, actual: actual, end: end, status: nil,
                                       errorCode: e.kind.rawValue, message: e.message, breakdown: e.timings)
            }
            return .failure(e)
        }
    }

    /// The observer's view of one exchange: the answer parsed again (only when someone observes).
    private static func exchangeSeen(_ template: String, sent: Sent, result: Result<HTTPResponse, HTTPError>,
                                     intended: UInt64, actual: UInt64, end: UInt64) -> Exchange {
        var e = Exchange(template: template, path: sent.path, requestBody: sent.json, idempotencyKey: sent.key,
                         status: nil, body: nil, intended: intended, sent: actual, received: end)
        if case let .success(r) = result {
            e.status = r.status
            e.bodyBytes = r.body.count
            if !r.body.isEmpty { e.body = try? JSONValue.parse(r.body) }
            e.serverDateMs = r.header("Date").flatMap(HTTPDate.parseMillis)
        }
        return e
    }

    /// Full-jitter capped exponential backoff; honours a server's `Retry-After` when larger.
    private func backoff(_ attempt: Int, retryAfter: Double?, random: inout SeededRandom) -> UInt64 {
        let cap = min(settings.backoffCapMs, settings.backoffBaseMs * Double(1 << min(attempt, 16)))
        var ms = random.unit() * cap
        if let ra = retryAfter { ms = max(ms, ra * 1000) }
        return MonotonicClock.now() &+ UInt64(ms * 1e6)
    }

    private static func aborted(_ template: String) -> APIError {
        APIError(status: nil, code: "aborted", message: "\(template): stopped while waiting to retry",
                 retryable: false, transport: .aborted)
    }
}

/// Holds the transfer of a call so that task cancellation can drop it.
private final class TransferHolder: @unchecked Sendable {
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
