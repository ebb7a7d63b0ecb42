import FleetCore

/// An error answer of the API: status, snake_case code, message, retryable, optional details.
/// Always serialised in the envelope `{"error": {code, message, retryable, details?}}`.
struct APIError: Error, Sendable {
    let status: Int
    let code: String
    let message: String
    let retryable: Bool
    var details: JSONValue? = nil
    /// Extra response headers (Retry-After).
    var headers: [(String, String)] = []

    var body: JSONValue {
        var e: JSONObject = ["code": .string(code), "message": .string(message), "retryable": .bool(retryable)]
        if let details { e["details"] = details }
        return ["error": .object(e)]
    }

    static func invalid(_ message: String) -> APIError {
        APIError(status: 400, code: "invalid_request", message: message, retryable: false)
    }
    static func unauthorized(_ message: String = "missing or invalid access token") -> APIError {
        APIError(status: 401, code: "unauthorized", message: message, retryable: false)
    }
    static let tokenExpired = APIError(status: 401, code: "token_expired", message: "the access token has expired; refresh it", retryable: false)
    static let entitlementRequired = APIError(status: 402, code: "entitlement_required",
                                              message: "an active subscription or trial is required", retryable: false)
    static func forbidden(_ message: String) -> APIError {
        APIError(status: 403, code: "forbidden", message: message, retryable: false)
    }
    static func notFound(_ what: String) -> APIError {
        APIError(status: 404, code: "not_found", message: "\(what) not found", retryable: false)
    }
    static func methodNotAllowed(_ allowed: [String]) -> APIError {
        APIError(status: 405, code: "method_not_allowed", message: "allowed methods: \(allowed.joined(separator: ", "))",
                 retryable: false, headers: [("Allow", allowed.joined(separator: ", "))])
    }
    static func stage(_ message: String, missingRound: Int? = nil, stage: String? = nil) -> APIError {
        var d: JSONObject = [:]
        if let missingRound { d["missing_round"] = .number(Double(missingRound)) }
        if let stage { d["stage"] = .string(stage) }
        return APIError(status: 409, code: "stage_precondition", message: message, retryable: false,
                        details: d.isEmpty ? nil : .object(d))
    }
    static let idempotencyConflict = APIError(status: 409, code: "idempotency_conflict",
                                              message: "this Idempotency-Key was used with a different body", retryable: false)
    static func payloadTooLarge(_ message: String) -> APIError {
        APIError(status: 413, code: "payload_too_large", message: message, retryable: false)
    }
    static let upgradeRequired = APIError(status: 426, code: "upgrade_required",
                                          message: "this app version is no longer supported; update the app", retryable: false)
    static func unavailable(_ message: String, retryAfterS: Int) -> APIError {
        APIError(status: 503, code: "unavailable", message: message, retryable: true,
                 headers: [("Retry-After", String(retryAfterS))])
    }
    static func internalError(_ message: String) -> APIError {
        APIError(status: 500, code: "internal", message: message, retryable: true)
    }
}
