/// The name of a latency metric (a histogram per window and for the run), spelled once.
///
/// The bench's own metrics are the static members, and `recorded` lists them for profile
/// validation (a threshold keyed by a name that no run records is refused). Other names can be
/// made with `init(_:)` for a recorder used on its own (tests, tools); results keep the plain
/// string (`MetricResult.name`), so results.json and the CSV files are unchanged.
public struct MetricName: RawRepresentable, Hashable, Comparable, Codable, Sendable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }

    /// User-seen: upload accepted → terminal verdict seen by the app (whose p99 `liveTotals()` reports).
    public static let assessmentTurnaround = MetricName("assessment_turnaround")
    /// Stack-side: the same turnaround from the stack's own timestamps.
    public static let assessmentTurnaroundServer = MetricName("assessment_turnaround_server")
    /// Session complete → settled home seen.
    public static let settlement = MetricName("settlement")
    /// Verdict seen → settled home seen.
    public static let settlementE2E = MetricName("settlement_e2e")
    /// A replayed complete (same idempotency key) → answered.
    public static let settlementReplay = MetricName("settlement_replay")
    /// Intended → actual start of a user.
    public static let userStart = MetricName("user_start")
    /// How late every request went out (actual − intended start), fed by every latency sample.
    public static let schedulingLag = MetricName("scheduling_lag")

    /// Every metric a run of the bench records.
    public static let recorded: [MetricName] = [
        .assessmentTurnaround, .assessmentTurnaroundServer, .settlement, .settlementE2E, .settlementReplay,
        .userStart, .schedulingLag,
    ]
    /// The headline metrics of reports and comparisons, in their order.
    public static let headline: [MetricName] = [.assessmentTurnaround, .assessmentTurnaroundServer, .settlement]

    /// One of `recorded`, or nil.
    public static func known(_ text: String) -> MetricName? { recorded.first { $0.rawValue == text } }

    public var description: String { rawValue }
    public static func < (a: MetricName, b: MetricName) -> Bool { a.rawValue < b.rawValue }

    public init(from decoder: Decoder) throws { rawValue = try decoder.singleValueContainer().decode(String.self) }
    public func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(rawValue)
    }
}

extension RunResults {
    /// The metric's results, nil when it has no samples.
    public func metric(_ name: MetricName) -> MetricResult? { metric(name.rawValue) }
}
