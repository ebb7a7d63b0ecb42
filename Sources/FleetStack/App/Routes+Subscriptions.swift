import FleetCore
import FleetSQLite

/// `POST /subscriptions/apple/transactions`: sandbox signed transactions extend the entitlement.
extension StackApp {
    /// A verified transaction's payload.
    struct SignedTransaction {
        let transactionID: String
        let originalTransactionID: String
        let productID: String
        let purchaseMs: Int64
        let expiresMs: Int64
        let offer: String
    }

    /// Verifies `base64url(header).base64url(payload).base64url(HMAC-SHA256(sandboxKey, header.payload))`
    /// and reads the payload; every problem is `400 invalid_request` naming what is wrong.
    func verifyTransaction(_ jws: String) throws -> SignedTransaction {
        let parts = jws.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3 else { throw APIError.invalid("'signed_transaction' must be header.payload.signature") }
        guard let sig = Base64URL.decode(parts[2]),
              HMACSHA256.constantTimeEqual(sig, HMACSHA256.mac(key: Array(settings.sandboxKey.utf8),
                                                                message: Array((parts[0] + "." + parts[1]).utf8))) else {
            throw APIError.invalid("'signed_transaction': the signature does not verify with the sandbox key")
        }
        guard let raw = Base64URL.decode(parts[1]), let p = try? JSONValue.parse(raw), p.object != nil else {
            throw APIError.invalid("'signed_transaction': the payload is not base64url JSON")
        }
        func field(_ name: String) throws -> String {
            guard let v = p[name]?.string, !v.isEmpty, v.utf8.count <= 200 else {
                throw APIError.invalid("'signed_transaction' payload: '\(name)' is required (a string)")
            }
            return v
        }
        func date(_ name: String) throws -> Int64 {
            guard let ms = RFC3339.parseMillis(try field(name)) else {
                throw APIError.invalid("'signed_transaction' payload: '\(name)' must be an RFC 3339 date-time")
            }
            return ms
        }
        let t = SignedTransaction(transactionID: try field("transaction_id"),
                                  originalTransactionID: try field("original_transaction_id"),
                                  productID: try field("product_id"), purchaseMs: try date("purchase_date"),
                                  expiresMs: try date("expires_date"), offer: try field("offer"))
        guard StackApp.productIDs.contains(t.productID) else {
            throw APIError.invalid("'signed_transaction' payload: product '\(t.productID)' is not one /paywall lists")
        }
        guard t.offer == "trial" || t.offer == "none" else {
            throw APIError.invalid("'signed_transaction' payload: 'offer' must be trial or none")
        }
        guard t.expiresMs > t.purchaseMs else {
            throw APIError.invalid("'signed_transaction' payload: 'expires_date' must be after 'purchase_date'")
        }
        return t
    }

    /// The entitlement ends at the latest (sandbox-scaled) expiry seen; a transaction id already
    /// seen for the user changes nothing. Under the `dup-transaction` bug every submission adds its
    /// whole duration instead.
    func appleTransaction(_ c: inout RequestContext) throws -> Reply {
        let key = try idempotencyKey(c)
        return try idempotent(c, key: key) {
            let t = try verifyTransaction(try c.string("signed_transaction", maxLength: 8192))
            let user = c.user!
            let duration = Int64(Double(t.expiresMs - t.purchaseMs) / settings.sandboxTimeScale)
            let seen = try db.queryOne("SELECT 1 FROM transactions WHERE user_id = ? AND transaction_id = ?",
                                       .text(user.id), .text(t.transactionID)) != nil
            if !seen || settings.bug(.dupTransaction) {
                let expires: Int64
                if settings.bug(.dupTransaction) {
                    expires = max(c.nowMs, user.entExpiresAt ?? 0) + duration
                } else {
                    expires = t.purchaseMs + duration
                }
                try db.run("""
                    INSERT INTO transactions (user_id, transaction_id, original_transaction_id, product_id, offer, purchase_at,
                                              expires_at, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    """, .text(user.id), .text(t.transactionID), .text(t.originalTransactionID), .text(t.productID),
                           .text(t.offer), .int(t.purchaseMs), .int(expires), .int(c.nowMs))
                if settings.bug(.dupTransaction) || user.entExpiresAt == nil || expires > user.entExpiresAt! || user.entStatus == "none" {
                    let grace: SQLiteValue = settings.gracePeriodS > 0 ? .int(expires + Int64(settings.gracePeriodS) * 1000) : .null
                    try db.run("UPDATE users SET ent_status = ?, ent_expires_at = ?, ent_grace_until = ? WHERE id = ?",
                               .text(t.offer == "trial" ? "trial" : "active"), .int(expires), grace, .text(user.id))
                }
            }
            guard let updated = try loadUser(user.id) else { throw APIError.internalError("user vanished") }
            return .json(200, updated.entitlementJSON(nowMs: c.nowMs))
        }
    }
}
