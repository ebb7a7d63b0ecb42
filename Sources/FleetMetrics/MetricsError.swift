/// What can go wrong in FleetMetrics. Every case is bad input to the bench (a file, a rule, a
/// set of shards): the CLI reports its description as one line and exits 2.
public enum MetricsError: Error, CustomStringConvertible, Equatable, Sendable {
    /// A results file that cannot be used: its path and why.
    case resultsFile(path: String, problem: String)
    /// A threshold that cannot be parsed: the rule as written and what was expected.
    case threshold(expression: String, problem: String)
    /// Results that are not the shards of one run, and which file says so.
    case shardMerge(String)

    public var description: String {
        switch self {
        case let .resultsFile(path, problem): return "\(path): \(problem)"
        case let .threshold(expression, problem): return "threshold '\(expression)': \(problem)"
        case let .shardMerge(message): return message
        }
    }
}
