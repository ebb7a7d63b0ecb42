/// One header line as it arrived (name keeps the sender's case) or as the handler wants it sent.
public struct HeaderField: Sendable, Equatable {
    public var name: String
    public var value: String

    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}

/// A complete, validated HTTP request handed to a `ServerHandler`.
///
/// The server only builds one once the head and the whole body have arrived, so a handler never
/// sees a truncated upload.
public struct ServerRequest: Sendable {
    public var method: String
    /// The raw request-target, e.g. `/v1/sessions/s1?x=1`.
    public var target: String
    /// The percent-decoded path without the query.
    public var path: String
    /// Decoded query parameters (`+` is a space; when a name repeats, the last one wins).
    public var query: [String: String]
    public var headers: [HeaderField]
    public var body: [UInt8]
    /// The peer as `ip:port` (`[v6]:port` for IPv6).
    public var remoteAddress: String

    public init(method: String, target: String, path: String, query: [String: String] = [:],
                headers: [HeaderField] = [], body: [UInt8] = [], remoteAddress: String = "") {
        self.method = method
        self.target = target
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
        self.remoteAddress = remoteAddress
    }

    /// The value of the first header called `name`, compared case-insensitively (ASCII).
    public func header(_ name: String) -> String? {
        for field in headers where asciiCaseInsensitiveEquals(field.name, name) {
            return field.value
        }
        return nil
    }
}

/// What a handler answers. The server adds `content-length` (and `connection`, `date`) itself and
/// drops any such header the handler sets, so framing is always the server's.
public struct ServerResponse: Sendable {
    public var status: Int
    public var headers: [HeaderField]
    public var body: [UInt8]

    public init(status: Int, headers: [HeaderField] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A JSON response: sets `content-type: application/json; charset=utf-8`.
    public static func json(_ status: Int, _ body: [UInt8], headers: [HeaderField] = []) -> ServerResponse {
        var all = headers
        all.append(HeaderField(name: "content-type", value: "application/json; charset=utf-8"))
        return ServerResponse(status: status, headers: all, body: body)
    }
}

/// The application behind the server.
///
/// Both methods run on one of the server's I/O threads: a handler that does slow work (disk,
/// SQLite under contention, sleeping) should hand it to its own queue and call `respond` from
/// there, or it stalls every connection on that thread.
public protocol ServerHandler: Sendable {
    /// Largest body accepted for this request head (the server answers 413 itself above it).
    func bodyLimit(method: String, path: String) -> Int
    /// Called once per complete request; `respond` may be called later and from any thread, exactly once.
    func handle(_ request: ServerRequest, respond: @escaping @Sendable (ServerResponse) -> Void)
}

/// Limits that protect the server from big or slow clients.
public struct ServerLimits: Sendable {
    /// Largest request head (request line + headers) in bytes; above it the answer is 431.
    public var maxHeaderBytes = 16_384
    /// Open connections at most; further connections are accepted and closed at once.
    public var maxConnections = 10_000
    /// Seconds to receive a full request head, counted from its first byte (or from accept for a
    /// new connection): defeats slowloris.
    public var headerTimeout: Double = 10
    /// Seconds a keep-alive connection may sit with nothing in flight, or a blocked write may
    /// make no progress, before it is closed.
    public var idleTimeout: Double = 60
    /// Seconds to receive a whole request body once its head is in.
    public var bodyTimeout: Double = 60

    public init() {}
}

/// ASCII case-insensitive equality without allocating lowercased copies.
@inline(__always)
func asciiCaseInsensitiveEquals(_ a: String, _ b: String) -> Bool {
    var ia = a.utf8.makeIterator()
    var ib = b.utf8.makeIterator()
    while true {
        switch (ia.next(), ib.next()) {
        case (nil, nil): return true
        case let (x?, y?):
            if x != y && asciiLower(x) != asciiLower(y) { return false }
        default: return false
        }
    }
}

@inline(__always)
func asciiLower(_ byte: UInt8) -> UInt8 {
    byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
}
