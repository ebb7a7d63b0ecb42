import Foundation
import FleetCore
import FleetHTTPServer
import FleetSQLite
import Synchronization

/// The reference stack's application: the `ServerHandler` behind the HTTP server.
///
/// Concurrency: the SQLite connection is touched only on `dbQueue`, a serial queue, so every
/// request's read-check-write runs alone and inside one transaction; this is what makes "one
/// effect per Idempotency-Key" and "one settlement per session" hold under concurrent repeats.
/// CPU work that needs no database (audio analysis, hashing uploads) runs elsewhere.
// @unchecked: `db`, `limiter` confined to `dbQueue`; `baseURL` behind a Mutex; `router`, `pipeline` set once in init.
final class StackApp: ServerHandler, @unchecked Sendable {
    // `router` and `pipeline` are assigned once in init and read-only afterwards; everything else
    // is immutable and Sendable.
    let settings: StackSettings
    let catalog: Catalog
    let db: SQLiteDatabase
    let dbQueue = DispatchQueue(label: "fleet.stack.db", qos: .userInitiated)
    let clock: StackClock
    let tokens: TokenSigner
    let uploads: UploadSigner
    let faults: FaultInjector
    let audio: AudioStore
    var limiter: RateLimiter
    private(set) var pipeline: AssessmentPipeline!
    private var router = Router(routes: [])
    private let _baseURL = Mutex("http://127.0.0.1")
    private let configBytes: [UInt8]
    private let timers = DispatchQueue(label: "fleet.stack.delays")
    /// Set by `ReferenceStack.stop()` once the server is closed: requests still queued for the
    /// database are answered 503 without touching it, so the stop does not first work through a
    /// backlog whose answers can no longer be delivered (at 200,000 users, seconds of it).
    let stopping = Atomic<Bool>(false)

    init(settings: StackSettings, database: SQLiteDatabase, catalog: Catalog, clock: StackClock = StackClock()) throws {
        self.settings = settings
        self.db = database
        self.catalog = catalog
        self.clock = clock
        try StackApp.migrate(database)
        let secret = try StackApp.secret(database)
        tokens = TokenSigner(secret: HMACSHA256.mac(key: secret, message: Array("tokens".utf8)))
        uploads = UploadSigner(secret: HMACSHA256.mac(key: secret, message: Array("uploads".utf8)))
        faults = FaultInjector(faults: settings.faults, seed: settings.seed)
        audio = try AudioStore(databasePath: database.path)
        limiter = RateLimiter(rate: settings.rateLimitPerSecond, burst: settings.rateLimitBurst)
        configBytes = StackApp.configJSON(settings).serializedBytes()
        pipeline = AssessmentPipeline(settings: settings, app: self)
        router = makeRouter()
    }

    /// Creates the tables, refusing a database written by another schema version.
    private static func migrate(_ db: SQLiteDatabase) throws {
        try db.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value BLOB NOT NULL)")
        if let v = try db.queryOne("SELECT value FROM meta WHERE key = 'schema_version'")?.int(0), v != Schema.version {
            throw StackSettingsError("database '\(db.path)' has schema version \(v), this stack needs \(Schema.version); use a new file")
        }
        try db.transaction {
            try db.execute(Schema.sql)
            try db.run("INSERT OR REPLACE INTO meta (key, value) VALUES ('schema_version', ?)", .int(Int64(Schema.version)))
        }
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
        get { _baseURL.withLock { $0 } }
        set { _baseURL.withLock { $0 = newValue } }
    }

    // MARK: ServerHandler

    func bodyLimit(method: String, path: String) -> Int {
        path.hasPrefix("/uploads/") ? settings.maxUploadBytes : settings.maxJSONBodyBytes
    }

    func handle(_ request: ServerRequest, respond: @escaping @Sendable (ServerResponse) -> Void) {
        // Routes that never touch the database answer on the I/O thread: no queue hop.
        if request.method == "GET" && faults.isEmpty {
            if request.path == "/healthz" { return respond(.json(200, Array(#"{"status":"ok"}"#.utf8))) }
            if request.path == "/config" { return respond(.json(200, configBytes)) }
        }
        let route: Route, params: [String: String]
        switch router.match(method: request.method, path: request.path) {
        case .notFound: return respond(Reply.error(.notFound("route \(request.method) \(request.path)")).response)
        case .methodNotAllowed(let allowed): return respond(Reply.error(.methodNotAllowed(allowed)).response)
        case .found(let r, let p): (route, params) = (r, p)
        }
        let (delayMs, injected) = faults.isEmpty ? (0, nil) : faults.draw(template: route.template)
        let after: (@escaping @Sendable () -> Void) -> Void = { [timers] work in
            if delayMs > 0 { timers.asyncAfter(deadline: .now() + .microseconds(Int(delayMs * 1000)), execute: work) } else { work() }
        }
        if let injected { return after { respond(Reply.error(injected).response) } }
        if route.template == "PUT /uploads/{id}" {
            // Hash and write the audio in parallel with other requests, off the database queue;
            // only a correctly signed upload is written at all.
            return after {
                DispatchQueue.global().async {
                    let hash = SHA256.hex(request.body)
                    let signed = (try? self.uploads.verify(method: "PUT", path: request.path, query: request.query,
                                                           nowMs: self.clock.nowMs())) == request.body.count
                    let staged = signed ? try? self.audio.stage(request.body) : nil
                    self.dbQueue.async {
                        if self.stopping.load(ordering: .relaxed) {
                            if let staged { self.audio.discard(staged) }
                            return respond(Reply.error(.unavailable("the stack is stopping", retryAfterS: 1)).response)
                        }
                        respond(self.process(request, route: route, params: params, uploadSHA256: hash, stagedUpload: staged).response)
                    }
                }
            }
        }
        if settings.bug(.settleRace) && route.template == "POST /sessions/{id}/complete" {
            return after { self.racyComplete(request, params: params, respond: respond) }
        }
        after {
            self.dbQueue.async {
                if self.stopping.load(ordering: .relaxed) {
                    return respond(Reply.error(.unavailable("the stack is stopping", retryAfterS: 1)).response)
                }
                respond(self.process(request, route: route, params: params).response)
            }
        }
    }

    /// Authenticates, parses and runs one matched request (on `dbQueue`).
    func process(_ request: ServerRequest, route: Route, params: [String: String], uploadSHA256: String? = nil,
                 stagedUpload: String? = nil) -> Reply {
        var ctx = RequestContext(request: request, params: params, nowMs: clock.nowMs())
        ctx.uploadSHA256 = uploadSHA256
        ctx.stagedUpload = stagedUpload
        defer { if let left = ctx.stagedUpload { audio.discard(left) } }
        do {
            if route.access == .user {
                ctx.user = try authenticate(request, nowMs: ctx.nowMs)
                if let wait = limiter.take(ctx.user.id, nowMs: ctx.nowMs) {
                    throw APIError(status: 429, code: "rate_limited", message: "too many requests; retry after \(wait) s",
                                   retryable: true, headers: [("Retry-After", String(wait))])
                }
            }
            if route.jsonBody { ctx.body = try parseBody(request.body) }
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

    /// Matches and runs a request synchronously (tests and the racy settlement use it).
    func processNow(_ request: ServerRequest) -> Reply {
        switch router.match(method: request.method, path: request.path) {
        case .notFound: return .error(.notFound("route \(request.method) \(request.path)"))
        case .methodNotAllowed(let allowed): return .error(.methodNotAllowed(allowed))
        case .found(let r, let p): return process(request, route: r, params: p)
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

    /// `GET /config`; the language lists are left out when `configListsLanguages` is off.
    static func configJSON(_ s: StackSettings) -> JSONValue {
        var config: JSONObject = [
            "min_app_version": .string(s.minAppVersion),
            "poll": ["initial_ms": .number(s.pollInitialMs), "max_ms": .number(s.pollMaxMs), "give_up_ms": 120_000],
            "limits": ["max_recording_s": 90, "max_upload_bytes": .number(Double(s.maxUploadBytes))],
            "flags": .object([:]),
        ]
        if s.configListsLanguages {
            config["supported_ui_locales"] = .array(s.uiLocales.map { .string($0) })
            config["supported_practice_languages"] = .array(s.practiceLanguages.map { .string($0) })
        }
        return .object(config)
    }
}
