import FleetCore

/// Signed bearer tokens: `base64url(kind|user|expiry|nonce) "." base64url(HMAC-SHA256)`.
///
/// Stateless, so checking one costs a hash and no database read; a deleted user's tokens are
/// refused by the user lookup that every authenticated route does anyway.
struct TokenSigner: Sendable {
    enum Kind: String, Sendable { case access = "a", refresh = "r" }

    enum Failure: Error, Equatable { case malformed, badSignature, expired, wrongKind }

    struct Claims: Sendable, Equatable {
        let kind: Kind
        let userID: String
        let expiresAtS: Int64
    }

    private let key: [UInt8]

    init(secret: [UInt8]) { key = secret }

    func issue(_ kind: Kind, userID: String, lifetimeS: Int, nowMs: Int64) -> String {
        var g = SystemRandomNumberGenerator()
        let exp = nowMs / 1000 + Int64(lifetimeS)
        let payload = Array("\(kind.rawValue)|\(userID)|\(exp)|\(String(g.next() as UInt32, radix: 36))".utf8)
        let p = Base64URL.encode(payload)
        return p + "." + Base64URL.encode(HMACSHA256.mac(key: key, message: Array(p.utf8)))
    }

    /// The claims of a well-signed, unexpired token of `kind`.
    func verify(_ token: String, kind: Kind, nowMs: Int64) throws(Failure) -> Claims {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, let sig = Base64URL.decode(String(parts[1])) else { throw .malformed }
        let expected = HMACSHA256.mac(key: key, message: Array(parts[0].utf8))
        guard HMACSHA256.constantTimeEqual(sig, expected) else { throw .badSignature }
        guard let raw = Base64URL.decode(String(parts[0])) else { throw .malformed }
        let fields = String(decoding: raw, as: UTF8.self).split(separator: "|", omittingEmptySubsequences: false)
        guard fields.count == 4, let k = Kind(rawValue: String(fields[0])), let exp = Int64(fields[2]) else { throw .malformed }
        guard k == kind else { throw .wrongKind }
        guard nowMs / 1000 < exp else { throw .expired }
        return Claims(kind: k, userID: String(fields[1]), expiresAtS: exp)
    }
}

/// Presigned upload URLs: the signature covers method, path, size and expiry, so a URL cannot
/// be reused for another object, another size or after it expired.
struct UploadSigner: Sendable {
    private let key: [UInt8]

    init(secret: [UInt8]) { key = secret }

    private func signature(method: String, path: String, size: Int, expiresAtS: Int64) -> String {
        Base64URL.encode(HMACSHA256.mac(key: key, message: Array("\(method)\n\(path)\n\(size)\n\(expiresAtS)".utf8)))
    }

    /// The query string (`size=…&expires=…&sig=…`) that authorises `method path`.
    func query(method: String, path: String, size: Int, expiresAtS: Int64) -> String {
        "size=\(size)&expires=\(expiresAtS)&sig=\(signature(method: method, path: path, size: size, expiresAtS: expiresAtS))"
    }

    enum Failure: Error, Equatable { case missing, forged, expired }

    /// Checks the query of an incoming upload; returns the signed size.
    func verify(method: String, path: String, query: [String: String], nowMs: Int64) throws(Failure) -> Int {
        guard let sizeS = query["size"], let size = Int(sizeS), let expS = query["expires"], let exp = Int64(expS),
              let sig = query["sig"], let given = Base64URL.decode(sig) else { throw .missing }
        guard let want = Base64URL.decode(signature(method: method, path: path, size: size, expiresAtS: exp)),
              HMACSHA256.constantTimeEqual(given, want) else { throw .forged }
        guard nowMs / 1000 < exp else { throw .expired }
        return size
    }
}
