/// The one loopback rule: where a test, a benchmark or CI may send load. Loopback is the name
/// `localhost`, 127.0.0.0/8, `::1` (in any IPv6 spelling) and 127.0.0.0/8 mapped into IPv6
/// (`::ffff:127.0.0.1`); brackets around an IPv6 literal are allowed. Nothing else is: not
/// `0.0.0.0` (any address), not a name that merely starts with 127 (`127.0.0.1.example.com`).
public enum Loopback {
    /// Whether `host` (a name or an IP literal, as in a URL) is loopback.
    public static func isLoopbackHost(_ host: String) -> Bool {
        let h = unbracketed(host).lowercased()
        return h == "localhost" || isLoopbackAddress(h)
    }

    /// Whether `address` is an IP literal in loopback (`--source-address`: names do not count).
    public static func isLoopbackAddress(_ address: String) -> Bool {
        let a = unbracketed(address)
        if let v4 = ipv4(a) { return v4[0] == 127 }
        guard let v6 = ipv6(a) else { return false }
        if v6 == [0, 0, 0, 0, 0, 0, 0, 1] { return true }
        return v6[0..<5].allSatisfy { $0 == 0 } && v6[5] == 0xFFFF && v6[6] >> 8 == 127
    }

    /// Whether the URL's host is loopback.
    public static func isLoopbackURL(_ url: String) -> Bool { host(ofURL: url).map(isLoopbackHost) ?? false }

    /// An IPv4 or IPv6 literal (not a host or interface name, which libcurl would look up).
    public static func isIPLiteral(_ text: String) -> Bool { ipv4(text) != nil || ipv6(text) != nil }

    /// The host of `scheme://[user@]host[:port][/path]`, without the brackets of an IPv6 literal.
    public static func host(ofURL url: String) -> String? {
        guard let schemeEnd = url.range(of: "://") else { return nil }
        var rest = url[schemeEnd.upperBound...]
        if let slash = rest.firstIndex(of: "/") { rest = rest[..<slash] }
        if let at = rest.lastIndex(of: "@") { rest = rest[rest.index(after: at)...] }
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else { return nil }
            return String(rest[rest.index(after: rest.startIndex)..<close])
        }
        if let colon = rest.lastIndex(of: ":") { rest = rest[..<colon] }
        return String(rest)
    }

    private static func unbracketed(_ s: String) -> String {
        s.hasPrefix("[") && s.hasSuffix("]") && s.count >= 2 ? String(s.dropFirst().dropLast()) : s
    }

    /// Four dotted decimal octets.
    static func ipv4(_ s: Substring) -> [UInt8]? {
        let parts = s.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var out: [UInt8] = []
        for p in parts {
            guard !p.isEmpty, p.count <= 3, p.allSatisfy(\.isASCII), let v = UInt8(p) else { return nil }
            out.append(v)
        }
        return out
    }
    static func ipv4(_ s: String) -> [UInt8]? { ipv4(Substring(s)) }

    /// Eight 16-bit groups: `a:b:…`, with at most one `::` and optionally a dotted IPv4 tail.
    static func ipv6(_ s: String) -> [UInt16]? {
        guard s.contains(":") else { return nil }
        func groups(_ part: Substring, allowV4Tail: Bool) -> [UInt16]? {
            if part.isEmpty { return [] }
            let fields = part.split(separator: ":", omittingEmptySubsequences: false)
            var out: [UInt16] = []
            for (i, f) in fields.enumerated() {
                if allowV4Tail && i == fields.count - 1 && f.contains(".") {
                    guard let v4 = ipv4(f) else { return nil }
                    out.append(UInt16(v4[0]) << 8 | UInt16(v4[1]))
                    out.append(UInt16(v4[2]) << 8 | UInt16(v4[3]))
                } else {
                    guard (1...4).contains(f.count), f.allSatisfy(\.isHexDigit), let v = UInt16(f, radix: 16) else { return nil }
                    out.append(v)
                }
            }
            return out
        }
        let halves = s.components(separatedBy: "::")
        switch halves.count {
        case 1:
            guard let g = groups(Substring(s), allowV4Tail: true), g.count == 8 else { return nil }
            return g
        case 2:
            guard let head = groups(Substring(halves[0]), allowV4Tail: false),
                  let tail = groups(Substring(halves[1]), allowV4Tail: true), head.count + tail.count <= 7 else { return nil }
            return head + Array(repeating: 0, count: 8 - head.count - tail.count) + tail
        default:
            return nil
        }
    }
}
