/// How a request's body is delimited (RFC 9112 §6).
enum BodyFraming: Equatable {
    case none
    case length(Int)
    case chunked
}

/// A parsed and validated request head: request line plus header fields.
struct RequestHead {
    var method: String
    var target: String
    var path: String
    var query: [String: String]
    var headers: [HeaderField]
    var isHTTP10: Bool
    /// Whether the connection stays open after this exchange (HTTP/1.1 unless `Connection: close`;
    /// HTTP/1.0 only with `Connection: keep-alive`).
    var keepAlive: Bool
    var framing: BodyFraming
    var expectsContinue: Bool

    var isHEAD: Bool { method == "HEAD" }

    /// Methods the server passes to handlers; any other valid token gets 501.
    static let knownMethods: Set<String> = ["GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS"]

    /// Finds the end of a head (just past its blank line) in `bytes`, scanning from `from`.
    ///
    /// Returns the head's length, or nil and the offset to resume scanning at once more bytes
    /// arrive (so a head dribbled in byte by byte is scanned once, not quadratically).
    static func findEnd(in bytes: UnsafeRawBufferPointer, from: Int) -> (length: Int?, resume: Int) {
        var i = from
        let n = bytes.count
        while i < n {
            guard let lf = bytes[i..<n].firstIndex(of: 0x0A) else { return (nil, n) }
            if lf + 1 >= n { return (nil, lf) }
            if bytes[lf + 1] == 0x0A { return (lf + 2, lf) }
            if bytes[lf + 1] == 0x0D {
                if lf + 2 >= n { return (nil, lf) }
                if bytes[lf + 2] == 0x0A { return (lf + 3, lf) }
            }
            i = lf + 1
        }
        return (nil, n)
    }

    /// Parses the head in `bytes` (exactly one head, through its blank line).
    static func parse(_ bytes: UnsafeRawBufferPointer) throws(HTTPParseError) -> RequestHead {
        var lines = LineCursor(bytes: bytes)
        guard let requestLine = lines.next() else { throw .badRequest("empty request") }
        let (method, targetBytes, isHTTP10) = try parseRequestLine(requestLine)
        let decoded = try RequestTarget.decode(targetBytes, method: method)

        var head = RequestHead(method: method, target: String(decoding: targetBytes, as: UTF8.self),
                               path: decoded.path, query: decoded.query, headers: [],
                               isHTTP10: isHTTP10, keepAlive: !isHTTP10, framing: .none,
                               expectsContinue: false)
        head.headers.reserveCapacity(12)
        var contentLength: Int?
        var sawTransferEncoding = false
        var chunked = false
        var hostCount = 0
        while let line = lines.next(), !line.isEmpty {
            let (name, value) = try parseHeaderLine(line)
            if matches(name, "content-length") {
                guard contentLength == nil else { throw .badRequest("duplicate Content-Length header") }
                contentLength = try parseContentLength(value)
            } else if matches(name, "transfer-encoding") {
                guard !sawTransferEncoding else { throw .badRequest("duplicate Transfer-Encoding header") }
                sawTransferEncoding = true
                chunked = try parseTransferEncoding(value)
            } else if matches(name, "connection") {
                for token in commaTokens(value) {
                    if matches(token, "close") { head.keepAlive = false }
                    else if matches(token, "keep-alive") && isHTTP10 { head.keepAlive = true }
                }
            } else if matches(name, "expect") {
                if matches(trimmed(value), "100-continue") { head.expectsContinue = true }
            } else if matches(name, "host") {
                hostCount += 1
            }
            head.headers.append(HeaderField(name: String(decoding: name, as: UTF8.self),
                                            value: String(decoding: value, as: UTF8.self)))
        }
        if sawTransferEncoding {
            guard contentLength == nil else {
                throw .badRequest("Content-Length and Transfer-Encoding must not both be sent")
            }
            guard !isHTTP10 else { throw .badRequest("Transfer-Encoding is not allowed in HTTP/1.0") }
            head.framing = chunked ? .chunked : .none
        } else if let contentLength, contentLength > 0 {
            head.framing = .length(contentLength)
        }
        if !isHTTP10 && hostCount != 1 {
            throw .badRequest(hostCount == 0 ? "HTTP/1.1 request without a Host header"
                                             : "more than one Host header")
        }
        return head
    }

    // MARK: Pieces.

    private static func parseRequestLine(_ line: UnsafeRawBufferPointer) throws(HTTPParseError)
        -> (String, UnsafeRawBufferPointer, Bool) {
        guard let sp1 = line.firstIndex(of: 0x20),
              let sp2 = line[(sp1 + 1)...].firstIndex(of: 0x20),
              sp1 > 0, sp2 > sp1 + 1, sp2 + 1 < line.count,
              !line[(sp2 + 1)...].contains(0x20) else {
            throw .badRequest("malformed request line: expected 'METHOD target HTTP/1.1'")
        }
        let methodBytes = UnsafeRawBufferPointer(rebasing: line[0..<sp1])
        guard methodBytes.allSatisfy(isTokenByte) else { throw .badRequest("malformed request method") }
        let method = String(decoding: methodBytes, as: UTF8.self)
        let target = UnsafeRawBufferPointer(rebasing: line[(sp1 + 1)..<sp2])
        guard target.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw .badRequest("request target contains a character that must be percent-encoded")
        }
        let version = UnsafeRawBufferPointer(rebasing: line[(sp2 + 1)...])
        let isHTTP10: Bool
        if version.elementsEqual("HTTP/1.1".utf8) {
            isHTTP10 = false
        } else if version.elementsEqual("HTTP/1.0".utf8) {
            isHTTP10 = true
        } else if version.count == 8, version.starts(with: "HTTP/".utf8),
                  (0x30...0x39).contains(version[5]), version[6] == 0x2E, (0x30...0x39).contains(version[7]) {
            throw .versionNotSupported
        } else {
            throw .badRequest("malformed HTTP version in the request line")
        }
        guard knownMethods.contains(method) else {
            throw .notImplemented("method \(method) is not supported")
        }
        return (method, target, isHTTP10)
    }

    private static func parseHeaderLine(_ line: UnsafeRawBufferPointer) throws(HTTPParseError)
        -> (UnsafeRawBufferPointer, UnsafeRawBufferPointer) {
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")), colon > 0 else {
            throw .badRequest("malformed header line (expected 'Name: value')")
        }
        let name = UnsafeRawBufferPointer(rebasing: line[0..<colon])
        guard name.allSatisfy(isTokenByte) else {
            // Also rejects obs-fold continuation lines and whitespace before the colon.
            throw .badRequest("malformed header name")
        }
        let value = trimmed(UnsafeRawBufferPointer(rebasing: line[(colon + 1)...]))
        guard value.allSatisfy({ $0 == 0x09 || ($0 >= 0x20 && $0 != 0x7F) }) else {
            throw .badRequest("header value contains a control character")
        }
        return (name, value)
    }

    private static func parseContentLength(_ value: UnsafeRawBufferPointer) throws(HTTPParseError) -> Int {
        guard !value.isEmpty, value.count <= 18, value.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
            throw .badRequest("Content-Length must be a decimal number of bytes")
        }
        return value.reduce(0) { $0 * 10 + Int($1 - 0x30) }
    }

    /// True for `chunked`; other codings are refused (we decode none of them).
    private static func parseTransferEncoding(_ value: UnsafeRawBufferPointer) throws(HTTPParseError) -> Bool {
        let codings = commaTokens(value)
        guard let last = codings.last, matches(last, "chunked") else {
            throw .badRequest("Transfer-Encoding must end with chunked")
        }
        guard codings.count == 1 else {
            throw .notImplemented("only the chunked transfer coding is supported")
        }
        return true
    }

    // MARK: Byte helpers.

    /// RFC 9110 tchar.
    @inline(__always)
    static func isTokenByte(_ b: UInt8) -> Bool {
        switch b {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"),
             UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."),
             UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }

    /// ASCII case-insensitive comparison with a lowercase literal.
    static func matches(_ bytes: UnsafeRawBufferPointer, _ lower: StaticString) -> Bool {
        guard bytes.count == lower.utf8CodeUnitCount else { return false }
        let l = UnsafeRawBufferPointer(start: lower.utf8Start, count: lower.utf8CodeUnitCount)
        for i in 0..<bytes.count where asciiLower(bytes[i]) != l[i] { return false }
        return true
    }

    static func trimmed(_ bytes: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        var start = 0
        var end = bytes.count
        while start < end && (bytes[start] == 0x20 || bytes[start] == 0x09) { start += 1 }
        while end > start && (bytes[end - 1] == 0x20 || bytes[end - 1] == 0x09) { end -= 1 }
        return UnsafeRawBufferPointer(rebasing: bytes[start..<end])
    }

    /// The non-empty, trimmed elements of a comma-separated list.
    static func commaTokens(_ bytes: UnsafeRawBufferPointer) -> [UnsafeRawBufferPointer] {
        bytes.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false)
            .map { trimmed(UnsafeRawBufferPointer(rebasing: $0)) }
            .filter { !$0.isEmpty }
    }
}

/// Iterates the lines of a head; each line excludes its LF and an optional CR before it.
struct LineCursor {
    let bytes: UnsafeRawBufferPointer
    var offset = 0

    mutating func next() -> UnsafeRawBufferPointer? {
        guard offset < bytes.count else { return nil }
        let end = bytes[offset...].firstIndex(of: 0x0A) ?? bytes.count
        var lineEnd = end
        if lineEnd > offset && bytes[lineEnd - 1] == 0x0D { lineEnd -= 1 }
        let line = UnsafeRawBufferPointer(rebasing: bytes[offset..<lineEnd])
        offset = end + 1
        return line
    }
}
