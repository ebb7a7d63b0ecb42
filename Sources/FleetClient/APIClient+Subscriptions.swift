import FleetCore

/// The paywall and the purchase (flows 1 and 7): products, signed sandbox transactions, the
/// entitlement they produce.
extension APIClient {
    /// `GET /paywall` → the products on offer.
    public func paywall(_ c: Credentials, intended: UInt64, random: inout SeededRandom) async -> Result<PaywallInfo, APIError> {
        await typedCall(.getPaywall, path: "/paywall", c, intended, &random, PaywallInfo.init)
    }

    /// `POST /subscriptions/apple/transactions {signed_transaction}` with the transaction id as
    /// Idempotency-Key (a repeat of one purchase is one effect) → the entitlement.
    public func submitTransaction(signed: String, key: String, _ c: Credentials, intended: UInt64,
                                  random: inout SeededRandom) async -> Result<EntitlementInfo, APIError> {
        await typedCall(.postTransaction, path: "/subscriptions/apple/transactions",
                        body: ["signed_transaction": .string(signed)], key: key, c, intended, &random, EntitlementInfo.init)
    }
}

/// The products of `GET /paywall`, in the order the stack lists them.
public struct PaywallInfo: Sendable {
    public struct Product: Sendable {
        public var id: String
        /// ISO 8601 period (`P1M`).
        public var period: String
        public var trialDays: Int
    }

    public var products: [Product]

    public init?(_ j: JSONValue) {
        guard let list = j["products"]?.array else { return nil }
        products = list.compactMap { p in
            p["id"]?.string.map { Product(id: $0, period: p["period"]?.string ?? "", trialDays: p["trial_days"]?.int ?? 0) }
        }
        if products.isEmpty { return nil }
    }
}

/// An entitlement: `none|trial|active|grace|expired`, with its end and grace end when set.
public struct EntitlementInfo: Sendable, Equatable {
    public var status: String
    public var expiresAtMillis: Int64?
    public var graceUntilMillis: Int64?

    /// From an Entitlement object (the transaction response) or a `GET /me` body (its `entitlement`).
    public init?(_ j: JSONValue) {
        let e = j["entitlement"] ?? j
        guard let s = e["status"]?.string else { return nil }
        status = s
        expiresAtMillis = e["expires_at"]?.string.flatMap(RFC3339.parseMillis)
        graceUntilMillis = e["grace_until"]?.string.flatMap(RFC3339.parseMillis)
    }

    /// Whether new sessions may be started (API.md: trial, active and grace).
    public var allowsNewSessions: Bool { status == "trial" || status == "active" || status == "grace" }
}
