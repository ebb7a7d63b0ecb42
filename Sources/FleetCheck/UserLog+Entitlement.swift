import FleetClient
import FleetCore
import FleetMetrics

/// What one user was told about its entitlement after each purchase.
struct EntitlementLog: Sendable {
    /// Per transaction id: the `expires_at` its answers gave while no other transaction changed things.
    var byTransaction: [String: (expiresMs: Int64, generation: Int, seen: Seen)] = [:]
    /// Bumped whenever the set of transactions that may have been applied grows (a new id answered,
    /// a purchase in doubt, purchases of different ids overlapping).
    var generation = 0
    /// The entitlement's `expires_at` after the last purchase answer of the current generation.
    var last: (expiresMs: Int64, generation: Int, seen: Seen)?
}

/// `transaction_extends_once`: one transaction id extends the entitlement once, however often and
/// however concurrently it is submitted.
extension UserLog {
    static func transactionID(ofRequest body: JSONValue?) -> String? {
        guard let signed = body?["signed_transaction"]?.string else { return nil }
        let parts = signed.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let bytes = Base64URL.decode(String(parts[1])),
              let payload = try? JSONValue.parse(bytes) else { return nil }
        return payload["transaction_id"]?.string
    }

    mutating func purchaseAnswered(transaction tx: String, _ e: Exchange, seen: Seen, otherOverlapped: Bool) -> [Finding] {
        guard let status = e.status, status < 500 else { entitlement.generation += 1; entitlement.last = nil; return [] }
        guard (200..<300).contains(status), let raw = e.body?["expires_at"]?.string, let expires = RFC3339.parseMillis(raw) else {
            return []
        }
        if otherOverlapped { entitlement.generation += 1 }
        var out: [Finding] = []
        let gen = entitlement.generation
        if let prior = entitlement.byTransaction[tx], prior.generation == gen, !otherOverlapped {
            if prior.expiresMs != expires {
                out.append(Finding(invariant: .transactionExtendsOnce,
                                   detail: "transaction \(tx) submitted again moved expires_at from \(RFC3339.format(millis: prior.expiresMs)) (#\(prior.seen.seq)) to \(raw)",
                                   seqs: [prior.seen.seq, seen.seq]))
            }
        } else if entitlement.byTransaction[tx] == nil {
            entitlement.generation += 1  // a new id: later answers are judged against this one's effect
        }
        entitlement.byTransaction[tx] = (expires, entitlement.generation, seen)
        entitlement.last = (expires, entitlement.generation, seen)
        return out
    }

    /// `GET /me`'s entitlement after the purchases: what the last purchase answer said.
    mutating func meEntitlement(_ e: Exchange, seen: Seen) -> [Finding] {
        guard e.succeeded, purchasesInFlight.values.allSatisfy({ $0 == 0 }), let last = entitlement.last,
              last.generation == entitlement.generation, last.seen.received < e.sent,
              let raw = e.body?["entitlement"]?["expires_at"]?.string, let expires = RFC3339.parseMillis(raw),
              expires != last.expiresMs else { return [] }
        return [Finding(invariant: .transactionExtendsOnce,
                        detail: "GET /me entitlement.expires_at \(raw), expected \(RFC3339.format(millis: last.expiresMs)) as after purchase #\(last.seen.seq) (no purchase since)",
                        seqs: [last.seen.seq, seen.seq])]
    }
}
