import FleetCore
import FleetHTTPServer

/// What a route answers: a status, an optional body and extra headers.
struct Reply: Sendable {
    var status: Int
    var body: [UInt8]?
    var headers: [HeaderField] = []
    /// The object this answer created, so stored idempotent answers can be dropped with it.
    var objectID: String? = nil
    /// The body is not JSON (media); its Content-Type is among `headers`.
    var rawBody = false

    static func json(_ status: Int, _ value: JSONValue) -> Reply {
        Reply(status: status, body: value.serializedBytes())
    }

    static func empty(_ status: Int) -> Reply { Reply(status: status, body: nil) }

    static func error(_ e: APIError) -> Reply {
        Reply(status: e.status, body: e.body.serializedBytes(), headers: e.headers.map { HeaderField(name: $0.0, value: $0.1) })
    }

    var response: ServerResponse {
        guard let body else { return ServerResponse(status: status, headers: headers) }
        return rawBody ? ServerResponse(status: status, headers: headers, body: body) : .json(status, body, headers: headers)
    }
}

/// How a route is protected.
enum RouteAccess: Sendable {
    /// No token (sign-in, health, config, the presigned upload).
    case open
    /// A valid access token of a live user on a supported app version.
    case user
}

/// One route: method, path pattern (`/sessions/{id}/attempts`), access, and the function.
struct Route: Sendable {
    let method: String
    let segments: [String]
    /// `METHOD /path/{param}`: the name faults and docs use.
    let template: String
    let access: RouteAccess
    /// Whether the body is JSON to parse (`{}` when empty); false for uploads and bodiless methods.
    let jsonBody: Bool
    /// Whether the route changes state (runs inside one write transaction).
    let writes: Bool
    let run: @Sendable (inout RequestContext) throws -> Reply

    init(_ method: String, _ pattern: String, _ access: RouteAccess, writes: Bool? = nil, jsonBody: Bool? = nil,
         _ run: @escaping @Sendable (inout RequestContext) throws -> Reply) {
        self.method = method
        self.segments = pattern.split(separator: "/").map(String.init)
        self.template = method + " " + pattern
        self.access = access
        self.jsonBody = jsonBody ?? (method == "POST" || method == "PATCH")
        self.writes = writes ?? (method != "GET")
        self.run = run
    }

    /// The path parameters when `path` fits this route's pattern.
    func match(_ path: [Substring]) -> [String: String]? {
        guard path.count == segments.count else { return nil }
        var params: [String: String] = [:]
        for (p, s) in zip(path, segments) {
            if s.hasPrefix("{") {
                guard !p.isEmpty else { return nil }
                params[String(s.dropFirst().dropLast())] = String(p)
            } else if p != s {
                return nil
            }
        }
        return params
    }
}

/// Finds the route for a request: 404 for an unknown path, 405 for a known path with another method.
struct Router: Sendable {
    let routes: [Route]

    enum Match {
        case found(Route, [String: String])
        case notFound
        case methodNotAllowed([String])
    }

    func match(method: String, path: String) -> Match {
        let parts = path.split(separator: "/", omittingEmptySubsequences: true)
        var allowed: [String] = []
        for r in routes {
            guard let params = r.match(parts) else { continue }
            if r.method == method || (method == "HEAD" && r.method == "GET") { return .found(r, params) }
            allowed.append(r.method)
        }
        return allowed.isEmpty ? .notFound : .methodNotAllowed(allowed)
    }
}

/// Everything a route needs about the request it serves.
struct RequestContext {
    let request: ServerRequest
    let params: [String: String]
    let nowMs: Int64
    /// The signed-in user (routes with `.user` access only).
    var user: UserRow!
    /// The body parsed as JSON (`{}` when empty) for routes that take one.
    var body: JSONValue = .object([:])
    /// SHA-256 of the body bytes, computed off the database queue for uploads.
    var uploadSHA256: String? = nil
    /// The upload's bytes, already written under a temporary name off the database queue; the
    /// upload route commits it, and whatever is left uncommitted is discarded.
    var stagedUpload: String? = nil

    func param(_ name: String) -> String { params[name] ?? "" }

    func header(_ name: String) -> String? { request.header(name) }
}

// MARK: Body field readers with errors that name the field.

extension RequestContext {
    func string(_ field: String, maxLength: Int = 256) throws(APIError) -> String {
        guard let v = body[field] else { throw .invalid("'\(field)' is required") }
        guard let s = v.string else { throw .invalid("'\(field)' must be a string") }
        guard !s.isEmpty, s.utf8.count <= maxLength else { throw .invalid("'\(field)' must be 1–\(maxLength) bytes") }
        return s
    }

    func optionalString(_ field: String, maxLength: Int = 256) throws(APIError) -> String? {
        guard let v = body[field], !v.isNull else { return nil }
        guard let s = v.string, s.utf8.count <= maxLength else { throw .invalid("'\(field)' must be a string of at most \(maxLength) bytes") }
        return s
    }

    func int(_ field: String, in range: ClosedRange<Int>) throws(APIError) -> Int {
        guard let v = body[field] else { throw .invalid("'\(field)' is required") }
        guard let n = v.int else { throw .invalid("'\(field)' must be an integer") }
        guard range.contains(n) else { throw .invalid("'\(field)' must be \(range.lowerBound)…\(range.upperBound), got \(n)") }
        return n
    }
}
