/// Response headers either as received (raw `Name: value\r\n` lines) or already split.
enum HTTPHeaderBlock: Sendable {
    case raw([UInt8])
    case parsed([HTTPHeader])

    /// All headers, splitting the raw block (lines without a colon are skipped).
    func all() -> [HTTPHeader] {
        switch self {
        case .parsed(let headers):
            return headers
        case .raw(let bytes):
            var out: [HTTPHeader] = []
            Self.forEachField(bytes) { name, value in
                out.append(HTTPHeader(String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self)))
                return true
            }
            return out
        }
    }

    /// The first header called `name` (ASCII case-insensitive), found without splitting the rest.
    func first(_ name: String) -> String? {
        switch self {
        case .parsed(let headers):
            return headers.first { $0.name.caseInsensitiveEquals(name) }?.value
        case .raw(let bytes):
            let wanted = Array(name.utf8)
            var found: String?
            Self.forEachField(bytes) { fieldName, value in
                guard Self.asciiCaseInsensitiveEqual(fieldName, wanted) else { return true }
                found = String(decoding: value, as: UTF8.self)
                return false
            }
            return found
        }
    }

    /// Calls `body(name, value)` for each `Name: value` line, value trimmed of spaces and tabs,
    /// until `body` returns false.
    private static func forEachField(_ bytes: [UInt8], _ body: (ArraySlice<UInt8>, ArraySlice<UInt8>) -> Bool) {
        var lineStart = 0
        let n = bytes.count
        while lineStart < n {
            var lineEnd = lineStart
            while lineEnd < n && bytes[lineEnd] != 0x0a { lineEnd += 1 }
            var end = lineEnd
            if end > lineStart && bytes[end - 1] == 0x0d { end -= 1 }
            if let colon = bytes[lineStart..<end].firstIndex(of: UInt8(ascii: ":")) {
                var v = colon + 1
                var e = end
                while v < e && (bytes[v] == 0x20 || bytes[v] == 0x09) { v += 1 }
                while e > v && (bytes[e - 1] == 0x20 || bytes[e - 1] == 0x09) { e -= 1 }
                if !body(bytes[lineStart..<colon], bytes[v..<e]) { return }
            }
            lineStart = lineEnd + 1
        }
    }

    private static func asciiCaseInsensitiveEqual(_ a: ArraySlice<UInt8>, _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        return zip(a, b).allSatisfy { x, y in x == y || (Self.lower(x) == Self.lower(y)) }
    }

    @inline(__always) private static func lower(_ c: UInt8) -> UInt8 {
        c >= 0x41 && c <= 0x5a ? c | 0x20 : c
    }
}
