/// What can go wrong in the runner, by what the CLI makes of it. (`ProfileError` stays apart:
/// it carries every issue of a profile at once.)
public enum RunnerError: Error, CustomStringConvertible, Equatable, Sendable {
    /// Bad input, named with what was expected: a flag (`--metrics-listen`, `--shard`), blast or
    /// probe options, the corpus or a run folder found wanting once a run began. Exit 2.
    case badInput(String)
    /// The run could not go on: target refused or unreachable, the embedded stack did not
    /// start, a result stream that cannot be written or recovered. Exit 1.
    case failed(String)

    public var description: String {
        switch self {
        case let .badInput(m), let .failed(m): return m
        }
    }

    public var isBadInput: Bool { if case .badInput = self { true } else { false } }
}
