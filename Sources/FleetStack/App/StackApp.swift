import Foundation
import FleetCore
import FleetSQLite

/// The reference stack's application: the `ServerHandler` behind the HTTP server.
///
/// Concurrency: the SQLite connection is touched only on `dbQueue`, a serial queue, so every
/// request's read-check-write runs alone and inside one transaction; this is what makes "one
/// effect per Idempotency-Key" and "one settlement per session" hold under concurrent repeats.
/// CPU work that needs no database (audio analysis, hashing uploads) runs elsewhere.
final class StackApp: ServerHandler, @unchecked Sendable {
    // @unchecked: `db` is used only on `dbQueue`; `baseURL` is guarded by `lock`; `router` is
    // assigned once in init and read-only afterwards; everything else is immutable and Sendable.
    let settings: StackSettings
    let catalog: Catalog
    let db: SQLiteDatabase
    let dbQueue = DispatchQueue(label: "fleet.stack.db", qos: .userInitiated)
    let tokens: TokenSigner
    let uploads: UploadSigner
    private(set) var pipeline: AssessmentPipeline!
    private var router = Router(routes: [])
    private let lock = Lock()
    private var _baseURL = "http://127.0.0.1"
    private let configBytes: [UInt8]

    init(settings: StackSettings, database: SQLiteDatabase, catalog: Catalog) throws {
        self.settings = settings
        self.db = database
        self.catalog = catalog
        try database.execute(Schema.sql)
        let secret = try StackApp.secret(database)
        tokens = TokenSigner(secret: HMACSHA256.mac(key: secret, message: Array("tokens".utf8)))
        uploads = UploadSigner(secret: HMACSHA256.mac(key: secret, message: Array("uploads".utf8)))
        configBytes = StackApp.configJSON(settings).serializedBytes()
        pipeline = AssessmentPipeline(settings: settings, app: self)
        router = makeRouter()
    }

    /// The stack's signing secret: random on first use, kept in the database so that tokens and
    /// upload URLs survive a restart on the same file.
    private static func secret(_ db: SQLiteDatabase) throws -> [UInt8] {
        if let row = try db.queryOne("SELECT value FROM meta WHERE key = 'secret'") { return row.blob(0) }
        var g = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: 0...255, using: &g) }
        try db.run("INSERT INTO meta (key, value) VALUES ('secret', ?)", .blob(bytes))
        return bytes
    }

    /// The origin that upload URLs point at, set once the server has its port.
    var baseURL: String {
        get { lock.withLock { _baseURL } }
        set { lock.withLock { _baseURL = newValue } }
    }

    // MARK: ServerHandler

    func bodyLimit(method: String, path: String) -> Int {
        path.hasPrefix("/uploads/") ? settings.maxUploadBytes : settings.maxJSONBodyBytes
    }

    func handle(_ request: ServerRequest, respond: @escaping @Sendable (ServerResponse) -> Void) {
        // Routes that never touch the database answer on the I/O thread: no queue hop.
        if request.method == "GET" {
            if request.path == "/healthz" { return respond(.json(200, Array(#"{"status":"ok"}"#.utf8))) }
            if request.path == "/config" { return respond(.json(200, configBytes)) }
        }
        // Hash an upload here, in parallel with other requests, not on the database queue.
        let uploadHash = request.method == "PUT" && request.path.hasPrefix("/uploads/") ? SHA256.hex(request.body) : nil
        dbQueue.async {
            respond(self.process(request, uploadSHA256: uploadHash).response)
        }
    }

    /// Routes, authenticates, parses and runs one request (on `dbQueue`).
    func process(_ request: ServerRequest, uploadSHA256: String? = nil) -> Reply {
        let route: Route, params: [String: String]
        switch router.match(method: request.method, path: request.path) {
        case .notFound: return .error(.notFound("route \(request.method) \(request.path)"))
        case .methodNotAllowed(let allowed): return .error(.methodNotAllowed(allowed))
        case .found(let r, let p): (route, params) = (r, p)
        }
        var ctx = RequestContext(request: request, params: params, nowMs: WallClock.nowMillis())
        ctx.uploadSHA256 = uploadSHA256
        do {
            if route.access == .user { ctx.user = try authenticate(request, nowMs: ctx.nowMs) }
            if route.method != "GET" && route.method != "DELETE" && route.method != "PUT" {
                ctx.body = try parseBody(request.body)
            }
            var reply: Reply
            if route.writes {
                reply = try db.transaction { try route.run(&ctx) }
            } else {
                reply = try route.run(&ctx)
            }
            if request.method == "HEAD" { reply.body = nil }
            return reply
        } catch let e as APIError {
            return .error(e)
        } catch let e as SQLiteError {
            return .error(.internalError("database: \(e.kind.rawValue)"))
        } catch {
            return .error(.internalError("unexpected: \(type(of: error))"))
        }
    }

    private func parseBody(_ bytes: [UInt8]) throws(APIError) -> JSONValue {
        if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) { return .object([:]) }
        let v: JSONValue
        do { v = try JSONValue.parse(bytes) } catch { throw .invalid("body: \(error)") }
        guard case .object = v else { throw .invalid("body: expected a JSON object") }
        return v
    }

    /// The live user behind the bearer token: 401 when missing, forged, expired or deleted;
    /// 426 when the user signed in with an app older than `minAppVersion`.
    func authenticate(_ request: ServerRequest, nowMs: Int64) throws -> UserRow {
        guard let auth = request.header("Authorization") else { throw APIError.unauthorized("missing Authorization: Bearer token") }
        guard auth.count > 7, auth.prefix(7).lowercased() == "bearer " else {
            throw APIError.unauthorized("Authorization must be 'Bearer <access_token>'")
        }
        let claims: TokenSigner.Claims
        do { claims = try tokens.verify(String(auth.dropFirst(7)), kind: .access, nowMs: nowMs) } catch {
            throw error == .expired ? APIError.tokenExpired : APIError.unauthorized("invalid access token")
        }
        guard let user = try loadUser(claims.userID), user.deletedAt == nil else {
            throw APIError.unauthorized("the account no longer exists")
        }
        if let v = AppVersion(user.appVersion), let min = AppVersion(settings.minAppVersion), v < min {
            throw APIError.upgradeRequired
        }
        return user
    }

    func loadUser(_ id: String) throws -> UserRow? {
        try db.queryOne("SELECT \(UserRow.columns) FROM users WHERE id = ?", .text(id)).map(UserRow.init)
    }

    // MARK: Routes

    private func makeRouter() -> Router {
        Router(routes: [
            Route("GET", "/healthz", .open) { _ in .json(200, ["status": "ok"]) },
            Route("GET", "/config", .open) { [unowned self] _ in Reply(status: 200, body: configBytes) },
            Route("POST", "/auth/anonymous", .open) { [unowned self] in try signIn(&$0) },
            Route("POST", "/auth/refresh", .open) { [unowned self] in try refresh(&$0) },
            Route("GET", "/me", .user, writes: false) { .json(200, $0.user.meJSON(nowMs: $0.nowMs)) },
            Route("GET", "/home", .user) { [unowned self] in try home(&$0) },
            Route("POST", "/sessions", .user) { [unowned self] in try createSession(&$0) },
            Route("GET", "/sessions/{id}", .user) { [unowned self] in try getSession(&$0) },
            Route("POST", "/sessions/{id}/reading-complete", .user) { [unowned self] in try readingComplete(&$0) },
            Route("POST", "/sessions/{id}/attempts", .user) { [unowned self] in try createAttempt(&$0) },
            Route("POST", "/sessions/{id}/complete", .user) { [unowned self] in try complete(&$0) },
            Route("PUT", "/uploads/{id}", .open) { [unowned self] in try upload(&$0) },
            Route("POST", "/attempts/{id}/submit", .user) { [unowned self] in try submit(&$0) },
            Route("GET", "/attempts/{id}", .user) { [unowned self] in try getAttempt(&$0) },
        ])
    }

    static func configJSON(_ s: StackSettings) -> JSONValue {
        [
            "min_app_version": .string(s.minAppVersion),
            "poll": ["initial_ms": 2000, "max_ms": 5000, "give_up_ms": 120_000],
            "limits": ["max_recording_s": 90, "max_upload_bytes": .number(Double(s.maxUploadBytes))],
            "flags": .object([:]),
            "supported_ui_locales": .array(Rules.uiLocales.map { .string($0) }),
            "supported_practice_languages": .array(Rules.practiceLanguages.map { .string($0) }),
        ]
    }
}
