import FleetCore

/// One header line: a name and its value, as sent or received (names keep their case).
public struct HTTPHeader: Sendable, Equatable {
    public var name: String
    public var value: String

    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }
}

/// A request body: a slice of bytes that many requests may share.
///
/// Thousands of virtual users upload the same few audio clips; each request refers to a range of
/// one `SharedBytes`, and the engine's upload callback copies straight from it into libcurl's send
/// buffer, so no user ever holds its own copy.
public struct HTTPBody: Sendable {
    public let storage: SharedBytes
    public let range: Range<Int>

    /// A slice of `storage` (the whole of it when `range` is nil). The range must lie inside it.
    public init(_ storage: SharedBytes, range: Range<Int>? = nil) {
        let r = range ?? 0..<storage.count
        precondition(r.lowerBound >= 0 && r.upperBound <= storage.count,
                     "HTTPBody range \(r) outside storage of \(storage.count) bytes")
        self.storage = storage
        self.range = r
    }

    /// A body of its own (for small JSON bodies); copies `bytes` once.
    public init(bytes: [UInt8]) {
        self.init(SharedBytes(bytes))
    }

    /// Number of bytes sent (the Content-Length).
    public var count: Int { range.count }
}

/// What to send: method, absolute URL, headers, optional body and a whole-transfer timeout.
public struct HTTPRequest: Sendable {
    public var method: String
    public var url: String
    public var headers: [HTTPHeader]
    public var body: HTTPBody?
    /// Seconds for the whole transfer, connect included.
    public var timeout: Double
    /// When set, the upload stops after this many body bytes and the request fails with
    /// `.aborted`, the way a PUT dies when the phone loses its network mid-upload.
    public var abortUploadAfterBytes: Int?

    public init(method: String, url: String, headers: [HTTPHeader] = [], body: HTTPBody? = nil,
                timeout: Double = 30) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
        self.abortUploadAfterBytes = nil
    }
}

/// libcurl's timing breakdown of a transfer (defined in FleetCore, shared with the recorder).
public typealias HTTPTimings = TransferTimings

/// A completed exchange: any status code counts as a response (4xx/5xx are not errors here).
///
/// Headers arrive as one raw block and are split into `HTTPHeader`s only when `headers` is read:
/// most callers look at the status, the body and perhaps one header, and a load generator should
/// not pay a dozen string allocations per response for headers nobody reads.
public struct HTTPResponse: Sendable {
    public var status: Int
    public var body: [UInt8]
    public var timings: HTTPTimings
    private var headerBlock: HTTPHeaderBlock

    public init(status: Int, headers: [HTTPHeader], body: [UInt8], timings: HTTPTimings) {
        self.status = status
        self.headerBlock = .parsed(headers)
        self.body = body
        self.timings = timings
    }

    /// A response whose header lines (`Name: value\r\n` …, no status line) are still raw bytes.
    init(status: Int, rawHeaders: [UInt8], body: [UInt8], timings: HTTPTimings) {
        self.status = status
        self.headerBlock = .raw(rawHeaders)
        self.body = body
        self.timings = timings
    }

    /// Every header of the final response, in order.
    public var headers: [HTTPHeader] {
        get { headerBlock.all() }
        set { headerBlock = .parsed(newValue) }
    }

    /// The value of the first header called `name`, compared case-insensitively.
    public func header(_ name: String) -> String? {
        headerBlock.first(name)
    }

    /// `body` with the first `name` header's value as bytes (nil without one), no String made;
    /// the bytes are valid only inside `body`.
    public func withHeader<R>(_ name: String, _ body: (UnsafeBufferPointer<UInt8>?) -> R) -> R {
        headerBlock.withFirst(name, body)
    }
}

extension String {
    /// ASCII case-insensitive equality, enough for header names (which are ASCII tokens).
    func caseInsensitiveEquals(_ other: String) -> Bool {
        let a = utf8, b = other.utf8
        guard a.count == b.count else { return false }
        return zip(a, b).allSatisfy { x, y in
            x == y || (x | 0x20 == y | 0x20 && (x | 0x20) >= 0x61 && (x | 0x20) <= 0x7a)
        }
    }
}
