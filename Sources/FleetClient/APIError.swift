import FleetCore
import FleetHTTP

/// Why an API call did not succeed, in the terms of API.md's error table.
///
/// A transport failure (no HTTP status) carries its libcurl-derived kind as the code (`timeout`,
/// `connect`, …) so that journeys and reports treat both kinds of failure uniformly.
public struct APIError: Error, Sendable, CustomStringConvertible {
    /// HTTP status, or nil when no response arrived.
    public var status: Int?
    /// `error.code` of the envelope, a transport kind, or `bad_response` for a body we cannot read.
    public var code: String
    public var message: String
    public var retryable: Bool
    /// `error.details`, e.g. `{"missing_round": 2}` or `{"unlock_hint": "…"}`.
    public var details: JSONValue?
    /// Seconds from `Retry-After`, when the server sent one.
    public var retryAfter: Double?
    public var transport: HTTPErrorKind?
    /// True when the code and `retryable` came from the server's error envelope.
    public var fromEnvelope: Bool

    public init(status: Int?, code: String, message: String, retryable: Bool, details: JSONValue? = nil,
                retryAfter: Double? = nil, transport: HTTPErrorKind? = nil, fromEnvelope: Bool = false) {
        self.fromEnvelope = fromEnvelope
        self.status = status
        self.code = code
        self.message = message
        self.retryable = retryable
        self.details = details
        self.retryAfter = retryAfter
        self.transport = transport
    }

    /// The app was killed (or the run stopped) while this call was in flight.
    public var isAborted: Bool { transport == .aborted }

    public var description: String {
        if let s = status { return "\(s) \(code): \(message)" }
        return "\(code): \(message)"
    }

    /// Builds the error from a non-2xx response: the envelope when it is there, the status otherwise.
    /// The server's code and message are cleaned and cut (`ServerText`) before anything keeps them.
    static func from(response: HTTPResponse) -> APIError {
        let retryAfter = response.header("Retry-After").flatMap { RetryAfter.seconds($0, nowMillis: WallClock.nowMillis()) }
        if let body = try? JSONValue.parse(response.body), let e = body["error"], let code = e["code"]?.string {
            return APIError(status: response.status, code: ServerText.code(code),
                            message: ServerText.message(e["message"]?.string ?? ""),
                            retryable: e["retryable"]?.bool ?? (response.status >= 500 || response.status == 429),
                            details: e["details"], retryAfter: retryAfter, fromEnvelope: true)
        }
        let fallback: String
        switch response.status {
        case 401: fallback = "unauthorized"
        case 404: fallback = "not_found"
        case 429: fallback = "rate_limited"
        case 500...599: fallback = response.status == 503 ? "unavailable" : "internal"
        default: fallback = "http_\(response.status)"
        }
        return APIError(status: response.status, code: fallback, message: "no error envelope in the response",
                        retryable: response.status >= 500 || response.status == 429, retryAfter: retryAfter)
    }

    static func from(transport e: HTTPError) -> APIError {
        APIError(status: nil, code: e.kind.rawValue, message: e.message, retryable: e.kind != .aborted, transport: e.kind)
    }

    /// A 2xx body that lacks a required field or has one of the wrong type (or a value the
    /// client must not use, like an upload method other than PUT): `bad_shape`.
    static func badResponse(_ why: String, status: Int) -> APIError {
        malformed(.badShape, why, status: status)
    }

    /// An answer the client cannot use, of one of the kinds in `Malformed`.
    static func malformed(_ kind: Malformed, _ why: String, status: Int?) -> APIError {
        APIError(status: status, code: kind.rawValue, message: why, retryable: true)
    }

    /// Why an answer that arrived cannot be used (transport kinds live in `HTTPErrorKind`).
    public enum Malformed: String, Sendable, CaseIterable {
        case badJSON = "bad_json"
        case badUTF8 = "bad_utf8"
        case badShape = "bad_shape"
        case unexpectedStatus = "unexpected_status"
    }

    /// True for an answer that arrived but could not be used, and for a transport failure after
    /// the request may have reached the server: the kinds a call that is safe to repeat repeats.
    var isMalformedOrLost: Bool {
        if let t = transport { return t != .aborted }
        return Malformed(rawValue: code) != nil
    }
}

extension String {
    func trimmingCharacters(in set: Character) -> String {
        var s = Substring(self)
        while s.first == set { s = s.dropFirst() }
        while s.last == set { s = s.dropLast() }
        return String(s)
    }
}
