import FleetCore

/// The library and growth: `GET /articles` with filters and cursors, `GET /growth`.
extension APIClient {
    /// `GET /articles?language=&topic=&status=&cursor=`; nil filters are left out of the query.
    public func articles(language: String? = nil, topic: String? = nil, status: String? = nil, cursor: String? = nil,
                         _ c: Credentials, intended: UInt64, random: inout SeededRandom) async -> Result<ArticlePage, APIError> {
        var query: [String] = []
        for (name, value) in [("language", language), ("topic", topic), ("status", status), ("cursor", cursor)] {
            if let v = value { query.append("\(name)=\(Self.percentEncoded(v))") }
        }
        let path = "/articles" + (query.isEmpty ? "" : "?" + query.joined(separator: "&"))
        return await typedCall(.getArticles, path: CallPath(plain: path), c, intended, &random, ArticlePage.init)
    }

    /// `GET /growth` → weeks and recent completed sessions.
    public func growth(_ c: Credentials, intended: UInt64, random: inout SeededRandom) async -> Result<GrowthInfo, APIError> {
        await typedCall(.getGrowth, path: "/growth", c, intended, &random, GrowthInfo.init)
    }

    /// RFC 3986 query-value encoding: unreserved characters pass, every other byte is `%XX`.
    static func percentEncoded(_ s: String) -> String {
        var out = ""
        for b in s.utf8 {
            switch b {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(b))
            default:
                out += "%" + Hex.encode([b]).uppercased()
            }
        }
        return out
    }
}

public struct ArticleInfo: Sendable, Equatable {
    public var id: String
    public var language: String
    public var topic: String
    public var locked: Bool
    public var unlockHint: String?
    /// Present once the user completed a session on it.
    public var bestOverall: Int?

    public init?(_ j: JSONValue) {
        guard let id = j["id"]?.string else { return nil }
        self.id = id
        language = j["language"]?.string ?? ""
        topic = j["topic"]?.string ?? ""
        locked = j["locked"]?.bool ?? false
        unlockHint = j["unlock_hint"]?.string
        bestOverall = j["best_overall"]?.int
    }
}

public struct ArticlePage: Sendable {
    public var items: [ArticleInfo]
    public var nextCursor: String?

    public init?(_ j: JSONValue) {
        guard let items = j["items"]?.array else { return nil }
        self.items = items.compactMap(ArticleInfo.init)
        nextCursor = j["next_cursor"]?.string
    }
}

public struct GrowthInfo: Sendable {
    /// Number of week buckets and of sessions counted in them.
    public var weeks: Int
    public var weekSessions: Int
    /// Recent completed sessions, newest first.
    public var recentSessionIds: [String]

    public var isEmpty: Bool { weeks == 0 && recentSessionIds.isEmpty }

    public init?(_ j: JSONValue) {
        guard let w = j["weeks"]?.array, let r = j["recent"]?.array else { return nil }
        weeks = w.count
        weekSessions = w.reduce(0) { $0 + ($1["sessions"]?.int ?? 0) }
        recentSessionIds = r.compactMap { $0["session_id"]?.string }
    }
}
