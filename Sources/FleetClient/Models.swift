import FleetCore

/// The few fields of API objects the virtual users act on. Everything else in a response is
/// ignored (API.md: unknown fields are ignored by the client); a missing required field makes the
/// typed call fail with `bad_response` rather than crash.

public struct SessionInfo: Sendable, Equatable {
    public var id: String
    public var kind: String
    public var articleId: String
    public var language: String
    public var stage: String
    /// round → attempt id of that round's current attempt.
    public var roundAttempts: [Int: String]

    public init?(_ j: JSONValue) {
        guard let id = j["id"]?.string, let stage = j["stage"]?.string else { return nil }
        self.id = id
        self.stage = stage
        kind = j["kind"]?.string ?? ""
        articleId = j["article_id"]?.string ?? ""
        language = j["language"]?.string ?? ""
        var rounds: [Int: String] = [:]
        for r in j["rounds"]?.array ?? [] {
            if let n = r["round"]?.int, let a = r["attempt_id"]?.string { rounds[n] = a }
        }
        roundAttempts = rounds
    }
}

public struct UploadTicket: Sendable {
    public var attemptId: String
    public var url: String
    public var method: String
    public var headers: [(String, String)]
    /// Wall-clock milliseconds since the epoch after which the URL is refused.
    public var expiresAtMillis: Int64?

    /// Nil (→ `bad_shape`) unless every value the client will put on the wire is usable: the
    /// method is `PUT`, the URL an absolute `http(s)` URL, each header a valid name and value
    /// that does not take over the request's framing. Nothing the server invented is sent.
    public init?(_ j: JSONValue) {
        guard let id = j["attempt_id"]?.string, let u = j["upload"], let url = u["url"]?.string,
              UploadCheck.isUsableURL(url) else { return nil }
        let method = u["method"]?.string ?? "PUT"
        guard method == "PUT" else { return nil }
        var headers: [(String, String)] = []
        if let h = u["headers"] {
            guard let o = h.object else { return nil }
            for (k, v) in o {
                guard let value = v.string, UploadCheck.isHeaderName(k), UploadCheck.isHeaderValue(value),
                      !UploadCheck.reserved.contains(k.lowercased()) else { return nil }
                headers.append((k, value))
            }
        }
        attemptId = id
        self.url = url
        self.method = method
        self.headers = headers.sorted { $0.0 < $1.0 }
        expiresAtMillis = u["expires_at"]?.string.flatMap(RFC3339.parseMillis)
    }
}

/// Checks on server-given upload values before they are used.
public enum UploadCheck {
    /// Headers that decide the request's framing or routing: the client sets them itself.
    static let reserved: Set<String> = ["host", "content-length", "transfer-encoding", "connection", "expect", "te",
                                        "upgrade", "keep-alive", "trailer", "proxy-connection"]

    /// An absolute `http`/`https` URL with a host, of visible ASCII only (no spaces, no controls).
    /// Read over the string's UTF-8 buffer: by Character, each upload's URL with its signature
    /// cost ~23k instructions, twice per upload; through `String.UTF8View`'s indices still ~5k.
    public static func isUsableURL(_ s: String) -> Bool {
        var s = s
        return s.withUTF8 { u -> Bool in
            guard u.count <= 8192, Self.allVisibleASCII(u) else { return false }
            let skip: Int
            if u.starts(with: "http://".utf8) { skip = 7 } else if u.starts(with: "https://".utf8) { skip = 8 } else { return false }
            let rest = u[skip...]
            let authority = rest.prefix { $0 != UInt8(ascii: "/") && $0 != UInt8(ascii: "?") && $0 != UInt8(ascii: "#") }
            // The host: after the last `@` (userinfo), before the first `:` (port); `[…]` is an IPv6 literal.
            let afterUser = authority.lastIndex(of: UInt8(ascii: "@")).map { authority[($0 + 1)...] } ?? authority
            let host = afterUser.prefix { $0 != UInt8(ascii: ":") }
            return !host.isEmpty || authority.first == UInt8(ascii: "[")
        }
    }

    /// Every byte in 0x21...0x7E, eight bytes a step: a byte at a time was ~3 instructions a byte
    /// of a signed upload URL, checked twice an upload (bench/instructions.sh). Per 64-bit word,
    /// a byte below 0x21 shows in `(w - 0x21…) & ~w`'s high bits, and one above 0x7E (or with
    /// its own high bit) in `(w + 0x01…) | w`'s; neither can miss a byte that is out of range.
    static func allVisibleASCII(_ u: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = u.baseAddress else { return true }
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        var i = 0
        while i + 8 <= u.count {
            let w = UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)
            let below = (w &- ones &* 0x21) & ~w, above = (w &+ ones) | w
            if (below | above) & highs != 0 { return false }
            i += 8
        }
        while i < u.count { guard u[i] > 0x20 && u[i] < 0x7f else { return false }; i += 1 }
        return true
    }

    /// An RFC 9110 token.
    public static func isHeaderName(_ s: String) -> Bool {
        !s.isEmpty && s.utf8.count <= 256 && s.utf8.allSatisfy { b in
            (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5a) || (b >= 0x61 && b <= 0x7a) || "!#$%&'*+-.^_`|~".utf8.contains(b)
        }
    }

    /// Visible ASCII, spaces and tabs (no CR, LF or NUL that could split the request).
    public static func isHeaderValue(_ s: String) -> Bool {
        s.utf8.count <= 4096 && s.utf8.allSatisfy { ($0 >= 0x20 && $0 < 0x7f) || $0 == 0x09 }
    }
}

public struct AttemptInfo: Sendable {
    public static let terminal: Set<String> = ["assessed", "failed", "unreliable"]

    public var id: String
    public var status: String
    public var retryable: Bool
    public var reason: String?
    public var submittedAtMillis: Int64?
    public var assessedAtMillis: Int64?
    public var assessmentId: String?
    public var overall: Int?

    public var isTerminal: Bool { Self.terminal.contains(status) }

    public init?(_ j: JSONValue) {
        guard let id = j["id"]?.string, let status = j["status"]?.string else { return nil }
        self.id = id
        self.status = status
        retryable = j["retryable"]?.bool ?? false
        reason = j["reason"]?.string
        submittedAtMillis = j["submitted_at"]?.string.flatMap(RFC3339.parseMillis)
        assessedAtMillis = j["assessed_at"]?.string.flatMap(RFC3339.parseMillis)
        assessmentId = j["assessment"]?["id"]?.string
        overall = j["assessment"]?["overall"]?.int
    }
}

public struct SettlementInfo: Sendable {
    public var sessionId: String
    public var xpAwarded: Int
    public var xpTotal: Int
    public var streak: Int
    public var outcome: String
    public var replayed: Bool
    /// The response without `replayed`, to check that a replay is byte-for-byte the first settlement.
    /// Serialised when asked (~27k instructions a settlement): the journeys never ask.
    public var canonical: String { String(decoding: Self.canonicalBytes(answer), as: UTF8.self) }
    private var answer: JSONObject

    /// A settlement answer as a replay must repeat it byte for byte: serialised with sorted keys,
    /// without `replayed` (the one member a replay changes).
    public static func canonicalBytes(_ answer: JSONObject) -> [UInt8] {
        var o = answer
        o["replayed"] = nil
        return JSONValue.object(o).serializedBytes()
    }

    public init?(_ j: JSONValue) {
        guard let sid = j["session_id"]?.string, let xp = j["xp_awarded"]?.int else { return nil }
        sessionId = sid
        xpAwarded = xp
        xpTotal = j["xp_total"]?.int ?? 0
        streak = j["streak"]?["current"]?.int ?? 0
        outcome = j["outcome"]?.string ?? ""
        replayed = j["replayed"]?.bool ?? false
        answer = j.object ?? [:]
    }
}

public struct HomeInfo: Sendable {
    public var questArticleId: String?
    public var questSessionId: String?
    public var questStatus: String?
    public var resumeSessionId: String?
    public var resumeStage: String?
    public var streak: Int

    public init(_ j: JSONValue) {
        questArticleId = j["today_quest"]?["article_id"]?.string
        questSessionId = j["today_quest"]?["session_id"]?.string
        questStatus = j["today_quest"]?["status"]?.string
        resumeSessionId = j["resume_session"]?["id"]?.string
        resumeStage = j["resume_session"]?["stage"]?.string
        streak = j["streak"]?.int ?? 0
    }
}

/// The client's polling policy, from `GET /config` (defaults as API.md gives them).
public struct PollPolicy: Sendable {
    public var initialMs = 2_000.0
    public var maxMs = 5_000.0
    public var giveUpMs = 120_000.0

    public init() {}

    public init(config j: JSONValue) {
        if let v = j["poll"]?["initial_ms"]?.double, v > 0 { initialMs = v }
        if let v = j["poll"]?["max_ms"]?.double, v > 0 { maxMs = v }
        if let v = j["poll"]?["give_up_ms"]?.double, v > 0 { giveUpMs = v }
    }
}

/// The language codes the server accepts, from `GET /config` (`supported_ui_locales`,
/// `supported_practice_languages`); where the config lacks a list, the app's bundled default
/// (state matrix, Settings · language: `[en, zh-Hans]`). A client sends only codes from here.
public struct LanguageSupport: Sendable, Equatable {
    public static let bundled = ["en", "zh-Hans"]

    public var uiLocales = LanguageSupport.bundled
    public var practiceLanguages = LanguageSupport.bundled

    public init() {}

    public init(uiLocales: [String], practiceLanguages: [String]) {
        self.uiLocales = uiLocales.isEmpty ? Self.bundled : uiLocales
        self.practiceLanguages = practiceLanguages.isEmpty ? Self.bundled : practiceLanguages
    }

    /// A missing, empty or malformed list falls back to the bundled default.
    public init(config j: JSONValue) {
        // One pass into an array of the right room (compactMap then filter made two, every launch).
        func list(_ key: String) -> [String] {
            guard let a = j[key]?.array else { return [] }
            var out: [String] = []
            out.reserveCapacity(a.count)
            for v in a { if let s = v.string, !s.isEmpty { out.append(s) } }
            return out
        }
        self.init(uiLocales: list("supported_ui_locales"), practiceLanguages: list("supported_practice_languages"))
    }

    /// The server's practice language for a device locale (same primary subtag), else its first.
    public func practiceLanguage(forLocale locale: String) -> String {
        LanguageTag.closest(to: locale, in: practiceLanguages)
    }

    /// The server's UI locale for a device locale (same primary subtag), else its first.
    public func uiLocale(forLocale locale: String) -> String {
        LanguageTag.closest(to: locale, in: uiLocales)
    }
}
