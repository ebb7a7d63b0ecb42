import FleetCore
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// One HTTP exchange as the app saw it: what went out and what came back, for whoever judges it.
///
/// Steps report; they do not judge. The client hands every exchange of a task to the task-local
/// `RequestContext.observer` (the invariant checker when a run checks), with the request's JSON body
/// and key, the answer's status and JSON, and the monotonic instants it was meant to go out, went
/// out and ended. `status == nil` means no answer arrived: its effect may or may not have committed.
public struct Exchange: Sendable {
    /// `POST /sessions/{id}/complete`, `PUT upload` (no `warmup:` prefix): the route's raw
    /// value, or the template as given when it names no route.
    public var template: String { route?.rawValue ?? unlisted }
    /// The template of an exchange whose template names no route; empty otherwise.
    private let unlisted: String
    /// The concrete path under the base URL (`/sessions/s_12/complete`), or the upload URL's path.
    public var path: String
    public var requestBody: JSONValue?
    public var idempotencyKey: String?
    public var status: Int?
    /// The answer parsed as JSON; nil when empty or not JSON (the client counts that as an error).
    public var body: JSONValue?
    /// The raw answer as it came (shared with the response, not copied): a trace line is cut
    /// from it when it needs no redaction.
    public var rawBody: [UInt8]
    /// The raw answer's length, for traces.
    public var bodyBytes: Int { rawBody.count }
    public var intended: UInt64
    public var sent: UInt64
    public var received: UInt64
    /// The server's `Date` header in Unix milliseconds (second resolution), when it sent one.
    public var serverDateMs: Int64?

    /// The `{id}` the client made `path` from (`CallPath.id`): what `pathID` would read off the
    /// path, without reading it and making a String of it again (~400 instructions an exchange).
    var knownPathID: String?

    /// The route `template` names; nil for a template the client does not call. Stored, not
    /// looked up: the checker asks several times an exchange, and a String enum's
    /// `init(rawValue:)` hashes the string each time (~600 instructions).
    public let route: Route?

    /// An exchange of one of the client's routes (what the client makes).
    public init(route: Route, path: String, requestBody: JSONValue? = nil, idempotencyKey: String? = nil,
                status: Int?, body: JSONValue?, rawBody: [UInt8] = [], intended: UInt64, sent: UInt64, received: UInt64,
                serverDateMs: Int64? = nil) {
        self.init(template: route.rawValue, route: route, path: path, requestBody: requestBody, idempotencyKey: idempotencyKey,
                  status: status, body: body, rawBody: rawBody, intended: intended, sent: sent, received: received,
                  serverDateMs: serverDateMs)
    }

    /// An exchange under any template (its route looked up).
    public init(template: String, path: String, requestBody: JSONValue? = nil, idempotencyKey: String? = nil,
                status: Int?, body: JSONValue?, rawBody: [UInt8] = [], intended: UInt64, sent: UInt64, received: UInt64,
                serverDateMs: Int64? = nil) {
        self.init(template: template, route: Route(rawValue: template), path: path, requestBody: requestBody,
                  idempotencyKey: idempotencyKey, status: status, body: body, rawBody: rawBody, intended: intended,
                  sent: sent, received: received, serverDateMs: serverDateMs)
    }

    private init(template: String, route: Route?, path: String, requestBody: JSONValue?, idempotencyKey: String?,
                 status: Int?, body: JSONValue?, rawBody: [UInt8], intended: UInt64, sent: UInt64, received: UInt64,
                 serverDateMs: Int64?) {
        self.route = route
        self.unlisted = route == nil ? template : ""
        self.path = path
        self.requestBody = requestBody
        self.idempotencyKey = idempotencyKey
        self.status = status
        self.body = body
        self.rawBody = rawBody
        self.intended = intended
        self.sent = sent
        self.received = received
        self.serverDateMs = serverDateMs
    }

    /// The `{id}` of a template's first placeholder, read off the concrete path.
    /// Both are walked segment by segment over their UTF-8 buffers (the checker asks for every
    /// exchange: three `split`s into arrays were 2 % of a journey's CPU, a walk by String index
    /// ~3k instructions an exchange).
    public var pathID: String? {
        if let knownPathID, route?.idSegment != nil { return knownPathID }
        let shape: (at: Int, of: Int)?
        if let route { shape = route.idSegment } else { shape = Self.idSegment(ofTemplate: unlisted) }
        guard let shape else { return nil }
        var path = self.path
        return path.withUTF8 { p -> String? in
            var id: String?
            let pathCount = Self.segments(p) { i, seg in
                if i == shape.at { id = String(decoding: seg, as: UTF8.self) }
            }
            return pathCount == shape.of ? id : nil
        }
    }

    /// Where a template's first `{id}` sits among its path's segments, and how many it has; nil
    /// without one. A route reads its own once (`Route.idSegment`).
    static func idSegment(ofTemplate template: String) -> (at: Int, of: Int)? {
        var template = template
        return template.withUTF8 { t -> (at: Int, of: Int)? in
            // The path part of `GET /attempts/{id}` (a template without a method is all path).
            let pathStart = t.firstIndex(of: 0x20).map { $0 + 1 } ?? 0
            let tail = UnsafeBufferPointer(rebasing: t[pathStart...])
            var idAt: Int?
            let count = Self.segments(tail) { i, seg in
                if idAt == nil, seg.elementsEqual("{id}".utf8) { idAt = i }
            }
            return idAt.map { ($0, count) }
        }
    }

    /// Calls `each` with the index and bytes of every non-empty `/`-separated segment of `s`;
    /// returns how many there are.
    /// Each `/` is found by memchr, many bytes a step (a byte loop was ~4 instructions a byte of
    /// every path the checker reads).
    private static func segments(_ s: UnsafeBufferPointer<UInt8>, _ each: (Int, UnsafeBufferPointer<UInt8>) -> Void) -> Int {
        guard s.baseAddress != nil else { return 0 }
        var count = 0
        var start = 0
        while start <= s.count {
            let end = slash(in: s, from: start) ?? s.count
            if start < end {
                each(count, UnsafeBufferPointer(rebasing: s[start..<end]))
                count += 1
            }
            start = end + 1
        }
        return count
    }

    public var succeeded: Bool { status.map { (200..<300).contains($0) } ?? false }
}

/// Receives every exchange of the tasks it is set on (`RequestContext.observer`).
public protocol ExchangeObserver: Sendable {
    /// Called before a request goes out (so a checker knows what is in flight).
    func willSend(route: Route, path: String, body: JSONValue?, at: UInt64)
    /// Called once per exchange, answered or not, after `willSend`.
    func exchanged(_ e: Exchange)
    /// A decision the user's generator took (`dailyQuest.fetch_evidence = true`), for traces.
    func decided(_ key: String, _ value: String)
}

/// Parses an HTTP `Date` header (IMF-fixdate, `Sun, 06 Nov 1994 08:49:37 GMT`) to Unix milliseconds.
public enum HTTPDate {
    /// Each month's three letters as one number (`Jan`: 0x4A616E): a month is found by comparing
    /// one integer, not three bytes of an array of arrays (a parse ~580 → ~520 instructions).
    private static let months: [UInt32] = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        .map { $0.utf8.reduce(0) { $0 << 8 | UInt32($1) } }

    /// `Sun, 06 Nov 1994 08:49:37 GMT` (RFC 9110's IMF-fixdate; a one-digit day is accepted) in Unix
    /// milliseconds. Read byte by byte over the string's UTF-8 buffer: every answer carries one;
    /// splitting it into substrings, then an array copy and generic slice comparisons, were a
    /// visible share of the client's time per exchange.
    public static func parseMillis(_ s: String) -> Int64? {
        var s = s
        return s.withUTF8 { parseMillis($0) }
    }

    /// The same, over the header's bytes as received (`HTTPResponse.withHeader`): no String is
    /// made of a value that is only read back as bytes (~200 instructions an answer). Answers
    /// within one second carry the same `Date`: the last one read is kept with its value, and a
    /// compare of its four words (and a lock) costs a fraction of a parse (~400 instructions).
    public static func parseMillis(_ b: UnsafeBufferPointer<UInt8>) -> Int64? {
        guard b.count == 29, let base = b.baseAddress else { return parse(b) }  // IMF-fixdate's length
        let raw = UnsafeRawPointer(base)
        let key = Key(raw.loadUnaligned(as: UInt64.self), raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self),
                      raw.loadUnaligned(fromByteOffset: 16, as: UInt64.self), raw.loadUnaligned(fromByteOffset: 21, as: UInt64.self))
        if let hit = last.withLock({ $0?.key == key ? $0 : nil }) { return hit.millis }
        let millis = parse(b)
        last.withLock { $0 = (key, millis) }
        return millis
    }

    /// 29 bytes as four words (the last two overlap by three bytes).
    private struct Key: Equatable {
        let a: UInt64, b: UInt64, c: UInt64, d: UInt64
        init(_ a: UInt64, _ b: UInt64, _ c: UInt64, _ d: UInt64) { self.a = a; self.b = b; self.c = c; self.d = d }
    }

    private static let last = Mutex<(key: Key, millis: Int64?)?>(nil)

    private static func parse(_ b: UnsafeBufferPointer<UInt8>) -> Int64? {
        var i = 0
        func skipWord() { while i < b.count && b[i] != 0x20 { i += 1 } }
        func space() -> Bool { guard i < b.count, b[i] == 0x20 else { return false }; i += 1; return true }
        func number(_ maxDigits: Int) -> Int? {
            var v = 0, n = 0
            while i < b.count, n < maxDigits, (0x30...0x39).contains(b[i]) { v = v * 10 + Int(b[i] - 0x30); i += 1; n += 1 }
            return n == 0 ? nil : v
        }
        func colon() -> Bool { guard i < b.count, b[i] == UInt8(ascii: ":") else { return false }; i += 1; return true }
        func isGMT() -> Bool {
            b.count - i == 3 && b[i] == UInt8(ascii: "G") && b[i + 1] == UInt8(ascii: "M") && b[i + 2] == UInt8(ascii: "T")
        }
        skipWord()
        guard space(), let day = number(2), space(), i + 3 <= b.count,
              let month = months.firstIndex(of: UInt32(b[i]) << 16 | UInt32(b[i + 1]) << 8 | UInt32(b[i + 2])) else { return nil }
        i += 3
        guard space(), let year = number(4), space(), let h = number(2), colon(), let m = number(2), colon(), let sec = number(2),
              space(), isGMT() else { return nil }
        guard (1...31).contains(day), (0...23).contains(h), (0...59).contains(m), (0...60).contains(sec), (1970...9999).contains(year)
        else { return nil }
        let days = RFC3339.daysFromCivil(Int64(year), Int64(month + 1), Int64(day))
        return (days * 86_400 + Int64(h * 3600 + m * 60 + sec)) * 1000
    }
}

/// A call's concrete path under the base URL and the `{id}` it was made from.
struct CallPath: ExpressibleByStringLiteral {
    let path: String
    /// The id, when reading the path's `{id}` segment back gives it: not empty, no `/` in it.
    let id: String?

    /// `prefix + id + suffix`, as the route's template places `{id}` (`/attempts/`, id, `/submit`).
    init(_ prefix: String, _ id: String, _ suffix: String = "") {
        path = Concat.join(prefix, id, suffix)
        self.id = id.isEmpty || Self.hasSlash(id) ? nil : id
    }

    /// Over the string's bytes by memchr (`slash(in:from:)`): `utf8.contains` stepped through the
    /// view a byte at a time (~13 instructions a byte of a 36-byte id).
    private static func hasSlash(_ s: String) -> Bool {
        s.utf8.withContiguousStorageIfAvailable { slash(in: $0, from: 0) != nil } ?? s.utf8.contains(UInt8(ascii: "/"))
    }

    /// A path without an `{id}` (or one the caller does not name).
    init(plain path: String) {
        self.path = path
        id = nil
    }

    init(stringLiteral path: String) { self.init(plain: path) }
}

/// Where the first `/` at or after `start` is in `b`, found by memchr (many bytes a step).
private func slash(in b: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
    guard let base = b.baseAddress, start < b.count else { return nil }
    return memchr(base + start, Int32(UInt8(ascii: "/")), b.count - start).map { UnsafeRawPointer(base).distance(to: UnsafeRawPointer($0)) }
}
