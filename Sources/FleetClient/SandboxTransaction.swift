import FleetCore

/// A sandbox App Store transaction the bench signs itself, as StoreKit would hand the app one.
///
/// API.md: the signed form is `base64url(header).base64url(payload).base64url(HMAC-SHA256)` with the
/// MAC over `base64url(header) + "." + base64url(payload)` (as in a JWS) under the sandbox key both
/// sides are configured with. The bench plays Apple here: no real store is reachable from a test run.
public struct SandboxTransaction: Sendable, Equatable {
    /// What the purchase was: a free trial (`trial`) or a paid period (`none`).
    public enum Offer: String, Sendable {
        case trial
        case none
    }

    public var transactionId: String
    /// The first transaction of the subscription chain; renewals keep it, so equal to the id at first purchase.
    public var originalTransactionId: String
    /// Must be a product `GET /paywall` lists, or the stack answers `400 invalid_request`.
    public var productId: String
    /// Milliseconds since the epoch (wall clock of the stack, which may be moved in tests).
    public var purchaseMs: Int64
    public var expiresMs: Int64
    public var offer: Offer

    public init(transactionId: String, originalTransactionId: String? = nil, productId: String,
                purchaseMs: Int64, expiresMs: Int64, offer: Offer) {
        self.transactionId = transactionId
        self.originalTransactionId = originalTransactionId ?? transactionId
        self.productId = productId
        self.purchaseMs = purchaseMs
        self.expiresMs = expiresMs
        self.offer = offer
    }

    /// The payload fields exactly as API.md names them; dates RFC 3339 with milliseconds.
    public var payload: JSONValue {
        .object([
            "transaction_id": .string(transactionId),
            "original_transaction_id": .string(originalTransactionId),
            "product_id": .string(productId),
            "purchase_date": .string(RFC3339.format(millis: purchaseMs)),
            "expires_date": .string(RFC3339.format(millis: expiresMs)),
            "offer": .string(offer.rawValue),
        ])
    }

    /// The compact signed form to send as `signed_transaction`.
    public func signed(key: String) -> String {
        Self.sign(payload: payload, key: key)
    }

    /// Signs any payload (tests use this to send malformed ones): header `{"alg":"HS256","typ":"JWT"}`.
    public static func sign(payload: JSONValue, key: String) -> String {
        let header: JSONValue = .object(["alg": .string("HS256"), "typ": .string("JWT")])
        let signingInput = Base64URL.encode(header.serializedBytes()) + "." + Base64URL.encode(payload.serializedBytes())
        let mac = HMACSHA256.mac(key: Array(key.utf8), message: Array(signingInput.utf8))
        return signingInput + "." + Base64URL.encode(mac)
    }

    /// Convenience for the journeys: signs a transaction of `durationMs` starting at `purchaseMs`.
    public static func sign(transactionId: String, productId: String, purchaseMs: Int64, durationMs: Int64,
                            offer: Offer, key: String) -> String {
        SandboxTransaction(transactionId: transactionId, productId: productId, purchaseMs: purchaseMs,
                           expiresMs: purchaseMs + durationMs, offer: offer).signed(key: key)
    }

    /// Reads back a signed transaction made with `key`; nil when the form or the MAC is wrong.
    /// The bench uses it to check its own signing in tests, and a fake store could use it too.
    public static func verify(_ signed: String, key: String) -> SandboxTransaction? {
        let parts = signed.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3, let sig = Base64URL.decode(parts[2]) else { return nil }
        let mac = HMACSHA256.mac(key: Array(key.utf8), message: Array((parts[0] + "." + parts[1]).utf8))
        guard HMACSHA256.constantTimeEqual(sig, mac), let raw = Base64URL.decode(parts[1]),
              let p = try? JSONValue.parse(raw),
              let id = p["transaction_id"]?.string, let original = p["original_transaction_id"]?.string,
              let product = p["product_id"]?.string,
              let purchase = p["purchase_date"]?.string.flatMap(RFC3339.parseMillis),
              let expires = p["expires_date"]?.string.flatMap(RFC3339.parseMillis),
              let offer = p["offer"]?.string.flatMap(Offer.init(rawValue:)) else { return nil }
        return SandboxTransaction(transactionId: id, originalTransactionId: original, productId: product,
                                  purchaseMs: purchase, expiresMs: expires, offer: offer)
    }
}
