import FleetCore
import FleetHTTP

/// Judging an answer before anything in it is used: what a real app's decoding layer does.
extension APIClient {
    /// Statuses API.md defines (its error table plus the 2xx of its routes). Anything else — a
    /// redirect, a final 1xx, a 405 or 418 — is `unexpected_status`: the bench does not follow
    /// redirects, and a status the contract does not name cannot be routed by the app.
    static let definedErrorStatuses: Set<Int> = [400, 401, 402, 403, 404, 409, 410, 413, 426, 429]

    /// A 2xx becomes `T` when its body is strict JSON (or empty) and `make` accepts it; every
    /// other answer becomes the precise error it is.
    static func judge<T>(_ r: Exchanged, template: String, make: (APIResponse) -> T?) -> Result<T, APIError> {
        let status = r.status
        if (200..<300).contains(status) {
            var json = JSONValue.null
            if !r.body.isEmpty {
                do { json = try (r.parsed ?? Result { () throws(JSONParseError) in try JSONValue.parse(r.body) }).get() } catch {
                    let kind: APIError.Malformed = error.isInvalidUTF8 ? .badUTF8 : .badJSON
                    return .failure(.malformed(kind, "\(template): \(error.description)", status: status))
                }
            }
            guard let v = make(APIResponse(status: status, body: json, end: r.end)) else {
                return .failure(.malformed(.badShape, "\(template): a required field is missing or of the wrong type",
                                           status: status))
            }
            return .success(v)
        }
        if definedErrorStatuses.contains(status) || (500..<600).contains(status) {
            return .failure(APIError.from(response: r.response))
        }
        return .failure(.malformed(.unexpectedStatus, "\(template): status \(status) is not one the contract defines",
                                   status: status))
    }

    /// The upload's answer: `200`/`204` with a body the client does not read — unless it claims
    /// to be JSON, which then has to be JSON.
    static func judgeUpload(_ r: Exchanged) -> Result<UInt64, APIError> {
        let claimsJSON = r.response.header("Content-Type")?.lowercased().contains("json") ?? false
        if (200..<300).contains(r.status), !claimsJSON || r.body.isEmpty { return .success(r.end) }
        return judge(r, template: Route.upload.rawValue) { _ in r.end }
    }

    /// Whether a repeat of this call has the effect of one call (API.md): anything under an
    /// Idempotency-Key, reads, the upload PUT, and the POSTs the contract makes idempotent.
    /// `method` is `route.method`, passed in because the caller already spelled it for the request.
    static func isSafeToRepeat(_ route: Route, method: String, key: String?) -> Bool {
        key != nil || method == "GET" || method == "HEAD" || method == "PUT" || repeatablePosts.contains(route)
    }

    /// Calls without a key whose repeat changes nothing: submit and reading-complete move a
    /// state machine forward once; abandon ends a session once; the same install id signs in the
    /// same user; a refresh token that was used is answered again or refused, never doubled.
    /// API.md also makes these so: "repeating [onboarding] returns the same diagnostic session";
    /// "the same transaction_id submitted twice … extends the entitlement once"; a PATCH of
    /// settings sets them to the same values again.
    static let repeatablePosts: Set<Route> = [
        .submitAttempt, .readingComplete, .abandonSession, .authAnonymous, .authRefresh, .postOnboarding, .postTransaction, .patchMe,
    ]
}
