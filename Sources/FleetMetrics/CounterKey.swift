/// A counter of a run (`RunResults.counters`), spelled once. Most counters are one name for the
/// whole run; `usersStarted` and `droppedArrivals` are also kept per scenario, under
/// `NAME:SCENARIO` (`users_started:daily`): `key` builds that string and `init(parsing:)` reads it
/// back, so the serialized keys of results.json and the CSV files stay as they were.
public struct CounterKey: Hashable, Sendable, CustomStringConvertible {
    /// The counter's name (`dropped_arrivals`), without a scenario.
    public let name: Name
    /// The scenario of a per-scenario counter, nil for the run-wide one.
    public let scenario: String?

    public init(_ name: Name, scenario: String? = nil) {
        self.name = name
        self.scenario = scenario
    }

    /// The counters the bench records.
    public enum Name: String, CaseIterable, Sendable {
        case droppedArrivals = "dropped_arrivals"
        case usersStarted = "users_started"
        case appKills = "app_kills"
        case uploadsCut = "uploads_cut"
        case retries
        case rateLimitWaits = "rate_limit_waits"
        case retriesOutOfPatience = "retries_out_of_patience"
        case abortedRequests = "aborted_requests"
        case doubleTaps = "double_taps"
        case uploadValuesRefused = "upload_values_refused"
        case unlockHintToasts = "unlock_hint_toasts"
        case unlockHintMissing = "unlock_hint_missing"
        case checkedUsers = "checked_users"
        case populationVisitsSkippedBusy = "population_visits_skipped_busy"

        /// Counters also kept per scenario (`users_started:SCENARIO`).
        public static let perScenario: [Name] = [.usersStarted, .droppedArrivals]
        /// Counters kept for the whole run (every one but `users_started`, which is only per scenario).
        public static let runWide: [Name] = allCases.filter { $0 != .usersStarted }
    }

    public static let separator: Character = ":"

    /// The string under which the counter is recorded and serialized.
    public var key: String { scenario.map { name.rawValue + String(Self.separator) + $0 } ?? name.rawValue }
    public var description: String { key }

    /// Reads a recorded key back; nil for a name the bench does not record, or a scenario on a
    /// counter that is not kept per scenario.
    public init?(parsing key: String) {
        if let sep = key.firstIndex(of: Self.separator) {
            guard let n = Name(rawValue: String(key[..<sep])), Name.perScenario.contains(n) else { return nil }
            self.init(n, scenario: String(key[key.index(after: sep)...]))
        } else {
            guard let n = Name(rawValue: key), Name.runWide.contains(n) else { return nil }
            self.init(n)
        }
    }

    // Shorthands for the run-wide counters.
    public static let droppedArrivals = CounterKey(.droppedArrivals)
    public static let appKills = CounterKey(.appKills)
    public static let uploadsCut = CounterKey(.uploadsCut)
    public static let retries = CounterKey(.retries)
    public static let rateLimitWaits = CounterKey(.rateLimitWaits)
    public static let retriesOutOfPatience = CounterKey(.retriesOutOfPatience)
    public static let abortedRequests = CounterKey(.abortedRequests)
    public static let doubleTaps = CounterKey(.doubleTaps)
    public static let uploadValuesRefused = CounterKey(.uploadValuesRefused)
    public static let unlockHintToasts = CounterKey(.unlockHintToasts)
    public static let unlockHintMissing = CounterKey(.unlockHintMissing)
    public static let checkedUsers = CounterKey(.checkedUsers)
    public static let populationVisitsSkippedBusy = CounterKey(.populationVisitsSkippedBusy)
    public static func usersStarted(_ scenario: String) -> CounterKey { CounterKey(.usersStarted, scenario: scenario) }
    public static func droppedArrivals(_ scenario: String) -> CounterKey { CounterKey(.droppedArrivals, scenario: scenario) }
}

extension Recorder {
    /// Adds `delta` to a counter.
    public func count(_ counter: CounterKey, _ delta: Int64 = 1) { count(counter.key, delta) }
}

extension RunResults {
    /// A counter's value, nil when never counted.
    public func counter(_ key: CounterKey) -> Int64? { counters[key.key] }

    /// The sum of a per-scenario counter over all scenarios (`users_started:*`).
    public func counterOverScenarios(_ name: CounterKey.Name) -> Int64 {
        counters.reduce(Int64(0)) { sum, kv in
            guard let k = CounterKey(parsing: kv.key), k.name == name, k.scenario != nil else { return sum }
            return sum + kv.value
        }
    }
}
