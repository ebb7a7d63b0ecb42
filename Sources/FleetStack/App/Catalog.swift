import Foundation
import FleetCore

/// One article of the library, as shipped in `Resources/articles.json`.
struct Article: Sendable {
    let id: String
    let language: String
    let topic: String
    let title: String
    let body: String
    let expectedReadS: Int
    let locked: Bool
    let unlockHint: String?

    var json: JSONValue {
        var o: JSONObject = [
            "id": .string(id), "title": .string(title), "language": .string(language), "topic": .string(topic),
            "body": .string(body), "expected_read_s": .number(Double(expectedReadS)), "locked": .bool(locked),
        ]
        if let unlockHint { o["unlock_hint"] = .string(unlockHint) }
        return .object(o)
    }
}

/// The library: topics and articles, loaded once from the bundled resource.
struct Catalog: Sendable {
    let topics: [(id: String, name: String)]
    let articles: [Article]
    private let byID: [String: Int]

    init(topics: [(id: String, name: String)], articles: [Article]) {
        self.topics = topics
        self.articles = articles
        var m: [String: Int] = [:]
        for (i, a) in articles.enumerated() { m[a.id] = i }
        byID = m
    }

    func article(_ id: String) -> Article? { byID[id].map { articles[$0] } }

    /// The library with each article's language named by the stack's code for it (same primary
    /// subtag: the bundled `zh` articles become `zh-Hans` where that is the code); an article in
    /// a language the stack does not offer keeps its tag.
    func taggingLanguages(as codes: [String]) -> Catalog {
        Catalog(topics: topics, articles: articles.map { a in
            Article(id: a.id, language: LanguageTag.match(a.language, in: codes) ?? a.language, topic: a.topic, title: a.title,
                    body: a.body, expectedReadS: a.expectedReadS, locked: a.locked, unlockHint: a.unlockHint)
        })
    }

    /// The first unlocked article in `language` (today's quest when there is no plan).
    func firstUnlocked(language: String) -> Article? {
        articles.first { $0.language == language && !$0.locked } ?? articles.first { !$0.locked }
    }

    /// Loads `articles.json` from the module bundle; errors name the field that is wrong.
    static func loadBundled() throws -> Catalog {
        guard let url = Bundle.module.url(forResource: "articles", withExtension: "json"),
              let data = FileManager.default.contents(atPath: url.path) else {
            throw StackSettingsError("articles.json: missing from the FleetStack bundle")
        }
        return try parse(Array(data), name: "articles.json")
    }

    static func parse(_ bytes: [UInt8], name: String) throws -> Catalog {
        let doc: JSONValue
        do { doc = try JSONValue.parse(bytes) } catch { throw StackSettingsError("\(name): \(error)") }
        guard let ts = doc["topics"]?.array, let arts = doc["articles"]?.array else {
            throw StackSettingsError("\(name): expected 'topics' and 'articles' arrays")
        }
        var topics: [(id: String, name: String)] = []
        for (i, t) in ts.enumerated() {
            guard let id = t["id"]?.string, let n = t["name"]?.string else {
                throw StackSettingsError("\(name): topics[\(i)] needs string 'id' and 'name'")
            }
            topics.append((id, n))
        }
        var articles: [Article] = []
        for (i, a) in arts.enumerated() {
            guard let id = a["id"]?.string, let lang = a["language"]?.string, let topic = a["topic"]?.string,
                  let title = a["title"]?.string, let body = a["body"]?.string, let read = a["expected_read_s"]?.int,
                  let locked = a["locked"]?.bool else {
                throw StackSettingsError("\(name): articles[\(i)] needs id, language, topic, title, body, expected_read_s, locked")
            }
            articles.append(Article(id: id, language: lang, topic: topic, title: title, body: body, expectedReadS: read,
                                    locked: locked, unlockHint: a["unlock_hint"]?.string))
        }
        return Catalog(topics: topics, articles: articles)
    }
}
