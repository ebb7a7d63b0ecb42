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
/// state matrix, recording every exchange.
///
/// Every answer is judged before it is used (`APIClient+Answer.swift`): a 2xx whose body is not
/// strict JSON, or lacks what the call needs, is an error of a precise kind, never a success.
/// Retry rules (`APIClient+Retry.swift`): 401 refreshes once and repeats; 429 waits `Retry-After`;
/// a retryable 5xx, and — for calls safe to repeat — transport failures and malformed answers,
/// repeat with capped exponential backoff and jitter from the user's generator, under the same
/// Idempotency-Key, while the user's patience lasts.
///
/// One instance serves the whole fleet; per-user state lives in `Credentials`. Every exchange is
/// recorded under its endpoint template with the instant it was *meant* to start, so that a slow
/// generator shows up as scheduling lag rather than as a faster server.
public final class APIClient: Sendable {
    public let settings: ClientSettings
    public let engine: HTTPEngine
    public let recorder: Recorder
    /// Where answers resume the user: nil = on the engine's I/O thread that received them, which
    /// runs the user too when users run on the loops (`EngineLevers.usersOnLoops`); else a queue.
    let queue: DispatchQueue? = EngineLevers.current.usersOnLoops
        ? nil : DispatchQueue(label: "fleet.client.completions", attributes: .concurrent)

    public init(settings: ClientSettings, engine: HTTPEngine, recorder: Recorder) {
        self.settings = settings
        self.engine = engine
        self.recorder = recorder
    }

    /// One logical API call, with retries. `route` names the endpoint in reports
    /// (`GET /attempts/{id}`); `path` is the concrete path under the base URL. The body must be
    /// empty or JSON.
    public func call(_ route: Route, path: String, body: JSONValue? = nil, idempotencyKey: String? = nil,
                     credentials: Credentials?, intended: UInt64, random: inout SeededRandom) async -> APIResult {
        await call(route, path: CallPath(plain: path), body: body, idempotencyKey: idempotencyKey, credentials: credentials,
                   intended: intended, random: &random)
    }

    /// The same, for a path made around an `{id}` (`CallPath`), which the checker is handed as it was.
    func call(_ route: Route, path: CallPath, body: JSONValue? = nil, idempotencyKey: String? = nil,
              credentials: Credentials?, intended: UInt64, random: inout SeededRandom) async -> APIResult {
        await perform(route, path: path, body: body, key: idempotencyKey, credentials: credentials,
                      intended: intended, random: &random) { $0 }
    }

    /// `POST /auth/refresh`; on success the credentials hold the new tokens.
    @inline(never)  // see APIClient.attempts: an inlined async callee's frame adds to its caller's
    public func refresh(_ c: Credentials, intended: UInt64, random: inout SeededRandom) async -> APIResult {
        guard let token = c.refreshToken else {
            return .failure(APIError(status: 401, code: "unauthorized", message: "no refresh token", retryable: false))
        }
        let r = await perform(.authRefresh, path: "/auth/refresh", body: ["refresh_token": .string(token)], key: nil,
                              credentials: nil, intended: intended, random: &random) { resp -> APIResponse? in
            resp.body["access_token"]?.string == nil ? nil : resp
        }
        if case let .success(resp) = r {
            c.accessToken = resp.body["access_token"]?.string
            if let rt = resp.body["refresh_token"]?.string { c.refreshToken = rt }
        }
        return r
    }

    /// Uploads bytes to a presigned URL (absolute; may be another host). Recorded as `PUT upload`.
    /// `abortAfterBytes` cuts the transfer mid-body, as a lost network would. A method other than
    /// `PUT`, a URL that is not absolute `http(s)` or an invalid header fails with `bad_shape`
    /// before anything is sent. Lost or malformed answers are retried (a PUT is safe to repeat).
    public func upload(url: String, method: String, headers: [HTTPHeader], body: HTTPBody, abortAfterBytes: Int? = nil,
                       intended: UInt64, random: inout SeededRandom) async -> Result<UInt64, APIError> {
        let request: HTTPRequest
        switch uploadRequest(url: url, method: method, headers: headers, body: body, abortAfterBytes: abortAfterBytes) {
        case let .success(r): request = r
        case let .failure(e): return .failure(e)
        }
        // A cut upload is the simulated lost network, not an answer to repeat.
        return await attempts(.upload, safe: abortAfterBytes == nil, credentials: nil, intended: intended,
                              random: &random, sent: Self.uploadSent(url), request: { _ in request }, judge: Self.judgeUpload)
    }

    /// The upload without the user's generator, as before retries existed: one exchange, no
    /// repeat (jitter must come from the user's seeded stream, which this caller does not pass).
    public func upload(url: String, method: String, headers: [HTTPHeader], body: HTTPBody, abortAfterBytes: Int? = nil,
                       intended: UInt64) async -> Result<UInt64, APIError> {
        let request: HTTPRequest
        switch uploadRequest(url: url, method: method, headers: headers, body: body, abortAfterBytes: abortAfterBytes) {
        case let .success(r): request = r
        case let .failure(e): return .failure(e)
        }
        var unused = SeededRandom(seed: 0)
        return await attempts(.upload, safe: false, retries: false, credentials: nil, intended: intended,
                              random: &unused, sent: Self.uploadSent(url), request: { _ in request }, judge: Self.judgeUpload)
    }

    /// The PUT, or `bad_shape` (counted as `upload_values_refused`) when a value the server chose
    /// is not one to put on the wire.
    private func uploadRequest(url: String, method: String, headers: [HTTPHeader], body: HTTPBody,
                               abortAfterBytes: Int?) -> Result<HTTPRequest, APIError> {
        guard method == "PUT", UploadCheck.isUsableURL(url),
              headers.allSatisfy({ UploadCheck.isHeaderName($0.name) && UploadCheck.isHeaderValue($0.value) }) else {
            recorder.count(.uploadValuesRefused)
            return .failure(.malformed(.badShape, "upload: the server's method, URL or headers are not usable", status: nil))
        }
        var request = HTTPRequest(method: "PUT", url: url, headers: headers, body: body, timeout: settings.uploadTimeout)
        request.abortUploadAfterBytes = abortAfterBytes
        return .success(request)
    }

    /// An upload as traces show it: the path of its URL (after `scheme://host`), no query.
    /// Read over the URL's UTF-8 bytes: `range(of:)` went through Foundation's NSString and the
    /// Character walks after it cost ~2k instructions an upload.
    static func uploadSent(_ url: String) -> Sent {
        var url = url
        let path = url.withUTF8 { b -> String? in
            let colon = UInt8(ascii: ":"), slash = UInt8(ascii: "/")
            guard b.count >= 3, let at = (0..<(b.count - 2)).first(where: { b[$0] == colon && b[$0 + 1] == slash && b[$0 + 2] == slash })
            else { return nil }
            guard let start = b[(at + 3)...].firstIndex(of: slash) else { return "/" }
            let end = b[start...].firstIndex(of: UInt8(ascii: "?")) ?? b.count
            return String(decoding: UnsafeBufferPointer(rebasing: b[start..<end]), as: UTF8.self)
        }
        return Sent(path: path ?? url, json: nil, key: nil)
    }

    static func aborted(_ template: String) -> APIError {
        APIError(status: nil, code: "aborted", message: "\(template): stopped while waiting to retry",
                 retryable: false, transport: .aborted)
    }
}
