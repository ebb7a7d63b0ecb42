/// The invariants a correct stack keeps (`../shared/API.md` § "Invariants", plus resume), by the
/// names that appear in `violations.csv`, `results.json`, the report and the documentation.
public enum Invariant: String, Sendable, Codable, CaseIterable, Comparable {
    case oneSettlementPerSession = "one_settlement_per_session"
    case replayIdentical = "replay_identical"
    case streakOncePerLocalDay = "streak_once_per_local_day"
    case transactionExtendsOnce = "transaction_extends_once"
    case oneTerminalStatus = "one_terminal_status"
    case userIsolation = "user_isolation"
    case deletionComplete = "deletion_complete"
    case resumeInProgress = "resume_in_progress"

    public static func < (a: Invariant, b: Invariant) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }
}

/// One breach of an invariant: who, when, what was expected and seen, and the requests involved
/// (numbers of the entries in the user's trace, `traces/user-<K>.jsonl`).
public struct Violation: Sendable, Codable, Equatable, Comparable {
    public var invariant: Invariant
    /// The user's index in the run (`Fleet.stream(scenario:local:)`), the argument of `fleet replay --user`.
    public var user: Int
    public var scenario: String
    public var journey: String
    /// The run's seed; with `user` it names the user's generator.
    public var seed: UInt64
    /// Seconds from the run's start to the answer that showed the breach.
    public var firstAtS: Double
    public var detail: String
    public var requests: [String]

    public init(invariant: Invariant, user: Int, scenario: String, journey: String, seed: UInt64, firstAtS: Double,
                detail: String, requests: [String]) {
        self.invariant = invariant
        self.user = user
        self.scenario = scenario
        self.journey = journey
        self.seed = seed
        self.firstAtS = firstAtS
        self.detail = detail
        self.requests = requests
    }

    enum CodingKeys: String, CodingKey {
        case invariant, user, scenario, journey, seed, detail, requests
        case firstAtS = "first_at_s"
    }

    /// Sorted by time, then user and invariant, so merged shards list violations as one run would.
    public static func < (a: Violation, b: Violation) -> Bool {
        (a.firstAtS, a.user, a.invariant, a.detail) < (b.firstAtS, b.user, b.invariant, b.detail)
    }
}

/// Decodes a missing list as empty, so results files written before a field existed still load.
@propertyWrapper
public struct DefaultEmpty<T: Codable & Sendable & Equatable>: Codable, Sendable, Equatable {
    public var wrappedValue: [T]
    public init(wrappedValue: [T]) { self.wrappedValue = wrappedValue }
    public init(from decoder: any Decoder) throws { wrappedValue = try decoder.singleValueContainer().decode([T].self) }
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(wrappedValue)
    }
}

extension KeyedDecodingContainer {
    public func decode<T>(_ type: DefaultEmpty<T>.Type, forKey key: Key) throws -> DefaultEmpty<T> {
        try decodeIfPresent(type, forKey: key) ?? DefaultEmpty(wrappedValue: [])
    }
}
