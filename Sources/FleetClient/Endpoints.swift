/// Every endpoint template the client records requests under (`GET /sessions/{id}`), plus the
/// presigned upload (`PUT upload`), spelled once. Client calls, the invariant checker, the race
/// amplifiers and report code compare routes, never strings.
public enum Route: String, CaseIterable, Sendable, Comparable, CustomStringConvertible {
    case authAnonymous = "POST /auth/anonymous", authRefresh = "POST /auth/refresh", getConfig = "GET /config"
    case getMe = "GET /me", patchMe = "PATCH /me", putPushToken = "PUT /me/push-token", deleteMe = "DELETE /me"
    case deleteTrainingData = "DELETE /me/training-data"
    case getTopics = "GET /topics", postOnboarding = "POST /onboarding", getPlan = "GET /plan", getPaywall = "GET /paywall"
    case postTransaction = "POST /subscriptions/apple/transactions"
    case getArticles = "GET /articles", getHome = "GET /home", getGrowth = "GET /growth"
    case createSession = "POST /sessions", getSession = "GET /sessions/{id}"
    case readingComplete = "POST /sessions/{id}/reading-complete", createAttempt = "POST /sessions/{id}/attempts"
    case completeSession = "POST /sessions/{id}/complete", abandonSession = "POST /sessions/{id}/abandon"
    case deleteSession = "DELETE /sessions/{id}"
    case submitAttempt = "POST /attempts/{id}/submit", getAttempt = "GET /attempts/{id}", retryAttempt = "POST /attempts/{id}/retry"
    case getExemplar = "GET /attempts/{id}/exemplar", getAttemptAudio = "GET /attempts/{id}/audio"
    case postFeedback = "POST /assessments/{id}/feedback"
    /// The presigned upload (its URL is the stack's, not a template of the API).
    case upload = "PUT upload"

    /// The HTTP method (`POST`): the raw value's bytes up to its space. Not `prefix { $0 != " " }`,
    /// which walks Characters (grapheme breaking) and was ~3k instructions a request, asked for
    /// on every call (bench/instructions.sh).
    public var method: String {
        var raw = rawValue
        return raw.withUTF8 { b in
            String(decoding: UnsafeBufferPointer(rebasing: b[..<(b.firstIndex(of: 0x20) ?? b.count)]), as: UTF8.self)
        }
    }
    public var description: String { rawValue }
    public static func < (a: Route, b: Route) -> Bool { a.rawValue < b.rawValue }

    /// Where the template's `{id}` sits among its path's segments and how many segments it has
    /// (`/sessions/{id}/complete`: at 1 of 3); nil without one. Read off each raw value once, not
    /// per call: the checker asks for every exchange, and walking the template was ~1k
    /// instructions an exchange (bench/instructions.sh).
    var idSegment: (at: Int, of: Int)? { Self.idSegments[ordinal] }

    private static let idSegments: [(at: Int, of: Int)?] = allCases.map { Exchange.idSegment(ofTemplate: $0.rawValue) }

    /// The case's place in `allCases` (declaration order). A case without a payload is stored as
    /// that index, in one byte here; reading it is a load, where a table keyed by the route hashed
    /// its raw value (~420 instructions a lookup). `unsafeBitCast` traps if the size ever differs.
    var ordinal: Int { Int(unsafeBitCast(self, to: UInt8.self)) }
}

/// The name a request is recorded under: its route, after the prefix of the requests made apart
/// from the measured ones (`warmup:GET /config`, `audit:GET /me`). The one place that knows the
/// prefixes: recording builds labels here, validation and reports parse them here.
public struct EndpointLabel: Hashable, Sendable, CustomStringConvertible {
    /// Why a request was made apart from a journey's measured ones.
    public enum Scope: String, CaseIterable, Sendable {
        /// Bringing a user to its cohort's starting state.
        case warmup = "warmup:"
        /// The invariant checker's audit after the run.
        case audit = "audit:"
    }

    public var scope: Scope?
    public var route: Route

    public init(_ route: Route, scope: Scope? = nil) {
        self.route = route
        self.scope = scope
    }

    /// Reads a recorded endpoint name back; nil when it names no route.
    public init?(parsing label: String) {
        var rest = Substring(label)
        let scope = Scope.allCases.first { rest.hasPrefix($0.rawValue) }
        if let scope { rest = rest.dropFirst(scope.rawValue.count) }
        guard let route = Route(rawValue: String(rest)) else { return nil }
        self.init(route, scope: scope)
    }

    /// Whether a recorded endpoint name carries a scope prefix (a warm-up or audit request).
    public static func isScoped(_ label: String) -> Bool { Scope.allCases.contains { label.hasPrefix($0.rawValue) } }

    /// The recorded name.
    public var description: String { (scope?.rawValue ?? "") + route.rawValue }
}

/// The endpoint names profile validation accepts (kept for callers that want strings).
public enum Endpoints {
    public static let templates: Set<String> = Set(Route.allCases.map(\.rawValue))
}
