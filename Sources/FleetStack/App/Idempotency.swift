import FleetCore
import FleetSQLite

/// Stored first results of requests carrying an `Idempotency-Key`, scoped by (user, method, exact path).
///
/// Every use runs on the database queue inside the request's transaction, so two concurrent
/// repeats cannot both miss the table: the second sees the first's stored result.
extension StackApp {
    /// The key from the header, or 400 naming it.
    func idempotencyKey(_ c: RequestContext) throws(APIError) -> String {
        guard let key = c.header("Idempotency-Key"), !key.isEmpty else {
            throw .invalid("the Idempotency-Key header is required on \(c.request.method) \(c.request.path)")
        }
        guard key.utf8.count <= 200 else { throw .invalid("Idempotency-Key must be at most 200 bytes") }
        return key
    }

    /// The body's fingerprint compared "as parsed JSON": the sorted-key serialisation of the parsed body.
    func bodyHash(_ c: RequestContext) -> String { SHA256.hex(c.body.serializedBytes()) }

    /// Runs `effect` once per (user, method, path, key): a repeat with the same body gets the first
    /// 2xx result; another body gets 409 `idempotency_conflict`. Errors are not stored (API.md).
    func idempotent(_ c: RequestContext, key: String, _ effect: () throws -> Reply) throws -> Reply {
        let hash = bodyHash(c)
        if let row = try db.queryOne("""
            SELECT body_hash, status, response FROM idempotency WHERE user_id = ? AND method = ? AND path = ? AND key = ?
            """, .text(c.user.id), .text(c.request.method), .text(c.request.path), .text(key)) {
            guard row.text(0) == hash else { throw APIError.idempotencyConflict }
            return Reply(status: Int(row.int(1)), body: row.blob(2))
        }
        let reply = try effect()
        if (200..<300).contains(reply.status) {
            try db.run("""
                INSERT INTO idempotency (user_id, method, path, key, body_hash, status, response, object_id, created_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, .text(c.user.id), .text(c.request.method), .text(c.request.path), .text(key), .text(hash),
                       .int(Int64(reply.status)), .blob(reply.body ?? []), .optionalText(reply.objectID), .int(c.nowMs))
        }
        return reply
    }
}
