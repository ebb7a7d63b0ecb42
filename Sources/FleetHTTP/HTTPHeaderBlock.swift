#if canImport(Glibc)
import Glibc
#endif

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
        withFirst(name) { $0.map { String(decoding: $0, as: UTF8.self) } }
    }

    /// Calls `body` with the value of the first header called `name` as bytes (nil without one):
    /// a reader of bytes (the `Date` header, every answer) makes no String to read it back.
    func withFirst<R>(_ name: String, _ body: (UnsafeBufferPointer<UInt8>?) -> R) -> R {
        switch self {
        case .parsed(let headers):
            guard var value = headers.first(where: { $0.name.caseInsensitiveEquals(name) })?.value else { return body(nil) }
            return value.withUTF8 { body($0) }
        case .raw(let bytes):
            // The name's own bytes (a header name is short, so inline): no array made per lookup.
            // A line is judged by its first bytes and the colon after them: a line of another
            // name is passed over without looking for its colon (the lookup of `Date` ~1.0k →
            // ~0.7k instructions).
            var name = name
            return name.withUTF8 { wanted in
                let k = wanted.count
                var found: R?
                Self.forEachLine(bytes) { line in
                    guard line.count > k, line[line.startIndex + k] == UInt8(ascii: ":"),
                          Self.asciiCaseInsensitiveEqual(line.prefix(k), wanted) else { return true }
                    found = body(UnsafeBufferPointer(rebasing: Self.trimmed(line.dropFirst(k + 1))))
                    return false
                }
                return found ?? body(nil)
            }
        }
    }

    /// Calls `body(name, value)` for each `Name: value` line, value trimmed of spaces and tabs,
    /// until `body` returns false.
    private static func forEachField(_ bytes: [UInt8], _ body: (Slice<UnsafeBufferPointer<UInt8>>, Slice<UnsafeBufferPointer<UInt8>>) -> Bool) {
        forEachLine(bytes) { line in
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { return true }
            return body(line[..<colon], trimmed(line[(colon + 1)...]))
        }
    }

    /// Calls `body` with each line, without its `\r\n` or `\n`, until `body` returns false.
    /// Walks the array's buffer: by array index (bounds-checked, the storage retained) the lookup
    /// of `Date` cost ~2k instructions an answer.
    private static func forEachLine(_ bytes: [UInt8], _ body: (Slice<UnsafeBufferPointer<UInt8>>) -> Bool) {
        bytes.withUnsafeBufferPointer { b in
            var lineStart = 0
            let n = b.count
            while lineStart < n {
                // The line's end by memchr, many bytes a step (a byte loop was ~1k instructions
                // an answer, to reach `Date`).
                let lineEnd = memchr(b.baseAddress! + lineStart, 0x0a, n - lineStart)
                    .map { UnsafeRawPointer(b.baseAddress!).distance(to: UnsafeRawPointer($0)) } ?? n
                var end = lineEnd
                if end > lineStart && b[end - 1] == 0x0d { end -= 1 }
                if !body(b[lineStart..<end]) { return }
                lineStart = lineEnd + 1
            }
        }
    }

    /// Without leading and trailing spaces and tabs.
    private static func trimmed(_ v: Slice<UnsafeBufferPointer<UInt8>>) -> Slice<UnsafeBufferPointer<UInt8>> {
        var s = v.startIndex, e = v.endIndex
        while s < e && (v.base[s] == 0x20 || v.base[s] == 0x09) { s += 1 }
        while e > s && (v.base[e - 1] == 0x20 || v.base[e - 1] == 0x09) { e -= 1 }
        return v.base[s..<e]
    }

    private static func asciiCaseInsensitiveEqual(_ a: Slice<UnsafeBufferPointer<UInt8>>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        guard a.count == b.count else { return false }
        var j = 0
        for x in a {
            let y = b[j]
            if x != y && Self.lower(x) != Self.lower(y) { return false }
            j += 1
        }
        return true
    }

    @inline(__always) private static func lower(_ c: UInt8) -> UInt8 {
        c >= 0x41 && c <= 0x5a ? c | 0x20 : c
    }
}
