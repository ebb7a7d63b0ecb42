/// Splits a request-target into its decoded path and query parameters.
///
/// Accepts origin-form (`/a/b?x=1`), absolute-form (`http://host/a/b?x=1`, reduced to its path)
/// and asterisk-form (`*`, for OPTIONS only). Percent-escapes must be well formed, `%00` is
/// refused (a NUL in a path is a classic injection), and the decoded text must be UTF-8.
enum RequestTarget {
    static func decode(_ target: UnsafeRawBufferPointer, method: String) throws(HTTPParseError)
        -> (path: String, query: [String: String]) {
        var bytes = target
        if bytes.count == 1 && bytes[0] == UInt8(ascii: "*") {
            guard method == "OPTIONS" else { throw .badRequest("request target '*' is only valid for OPTIONS") }
            return ("*", [:])
        }
        if bytes.first != UInt8(ascii: "/") {
            bytes = try pathOfAbsoluteForm(bytes)
        }
        for b in bytes where b == UInt8(ascii: "#") {
            throw .badRequest("request target must not contain a fragment ('#')")
        }
        var pathEnd = bytes.count
        if let q = bytes.firstIndex(of: UInt8(ascii: "?")) { pathEnd = q }
        let rawPath = UnsafeRawBufferPointer(rebasing: bytes[0..<pathEnd])
        let path = rawPath.isEmpty ? "/" : try percentDecode(rawPath, plusIsSpace: false, what: "path")
        var query: [String: String] = [:]
        if pathEnd < bytes.count {
            query = try decodeQuery(UnsafeRawBufferPointer(rebasing: bytes[(pathEnd + 1)...]))
        }
        return (path, query)
    }

    /// `http://host:port/p?q` → `/p?q`; `http://host?q` → `?q` (the caller reads an empty path as `/`).
    private static func pathOfAbsoluteForm(_ bytes: UnsafeRawBufferPointer) throws(HTTPParseError)
        -> UnsafeRawBufferPointer {
        let prefixes = ["http://", "https://"]
        for prefix in prefixes where startsWithCaseInsensitive(bytes, prefix) {
            let rest = UnsafeRawBufferPointer(rebasing: bytes[prefix.utf8.count...])
            guard !rest.isEmpty, rest[0] != UInt8(ascii: "/") else {
                throw .badRequest("absolute request target has no host")
            }
            let start = rest.firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") } ?? rest.count
            return UnsafeRawBufferPointer(rebasing: rest[start...])
        }
        throw .badRequest("request target must start with '/' (or be an absolute http URL)")
    }

    private static func decodeQuery(_ bytes: UnsafeRawBufferPointer) throws(HTTPParseError) -> [String: String] {
        var result: [String: String] = [:]
        var start = 0
        while start <= bytes.count {
            var end = start
            while end < bytes.count && bytes[end] != UInt8(ascii: "&") { end += 1 }
            if end > start {
                let pair = UnsafeRawBufferPointer(rebasing: bytes[start..<end])
                if let eq = pair.firstIndex(of: UInt8(ascii: "=")) {
                    let key = try percentDecode(UnsafeRawBufferPointer(rebasing: pair[0..<eq]),
                                                plusIsSpace: true, what: "query")
                    let value = try percentDecode(UnsafeRawBufferPointer(rebasing: pair[(eq + 1)...]),
                                                  plusIsSpace: true, what: "query")
                    result[key] = value
                } else {
                    result[try percentDecode(pair, plusIsSpace: true, what: "query")] = ""
                }
            }
            start = end + 1
        }
        return result
    }

    /// Decodes `%XX` (and `+` when `plusIsSpace`); the result must be valid UTF-8 without NUL.
    static func percentDecode(_ bytes: UnsafeRawBufferPointer, plusIsSpace: Bool, what: String)
        throws(HTTPParseError) -> String {
        let needsWork = bytes.contains { $0 == UInt8(ascii: "%") || (plusIsSpace && $0 == UInt8(ascii: "+")) }
        if !needsWork {
            // The target was already checked to be visible ASCII, so this is valid UTF-8.
            return String(decoding: bytes, as: UTF8.self)
        }
        var out = [UInt8]()
        out.reserveCapacity(bytes.count)
        var i = 0
        while i < bytes.count {
            let b = bytes[i]
            if b == UInt8(ascii: "%") {
                guard i + 2 < bytes.count, let hi = hexValue(bytes[i + 1]), let lo = hexValue(bytes[i + 2]) else {
                    throw .badRequest("malformed percent-escape in the request \(what)")
                }
                let decoded = hi << 4 | lo
                if decoded == 0 { throw .badRequest("the request \(what) must not contain %00") }
                out.append(decoded)
                i += 3
            } else {
                out.append(plusIsSpace && b == UInt8(ascii: "+") ? 0x20 : b)
                i += 1
            }
        }
        guard let text = String(validating: out, as: UTF8.self) else {
            throw .badRequest("the request \(what) does not decode to UTF-8")
        }
        return text
    }

    @inline(__always)
    static func hexValue(_ b: UInt8) -> UInt8? {
        switch b {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return b - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return b - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return b - UInt8(ascii: "A") + 10
        default: return nil
        }
    }

    static func startsWithCaseInsensitive(_ bytes: UnsafeRawBufferPointer, _ prefix: String) -> Bool {
        var i = 0
        for p in prefix.utf8 {
            guard i < bytes.count, asciiLower(bytes[i]) == p else { return false }
            i += 1
        }
        return true
    }
}
