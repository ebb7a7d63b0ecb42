/// Which part of a run this process plays: shard `index` of `count` (`fleet run --shard i/N`).
///
/// A run's users are numbered per scenario by their place in the schedule (the k-th arrival of
/// an open model, the k-th user of `per-user-once`, slot k of a closed model), and every decision
/// a user makes comes from a generator seeded by (seed, scenario, that number). Shard i keeps the
/// users whose number is ≡ i (mod N): every shard computes the whole schedule and skips the
/// others, so the union of N shards is exactly the single run's users, with their own intended
/// starts and decisions, and arrival rates and populations are divided without any rounding of
/// rates (a shard's Poisson stream is the single run's, thinned by index).
public struct Shard: Sendable, Equatable, CustomStringConvertible {
    public let index: Int
    public let count: Int

    /// The whole run: one process owns every user.
    public static let whole = Shard(uncheckedIndex: 0, count: 1)

    public init(index: Int, count: Int) throws {
        guard count >= 1 else { throw RunnerError.badInput("shard count must be >= 1, got \(count)") }
        guard index >= 0, index < count else { throw RunnerError.badInput("shard index must be in 0…\(count - 1), got \(index)") }
        self.index = index
        self.count = count
    }

    private init(uncheckedIndex: Int, count: Int) {
        index = uncheckedIndex
        self.count = count
    }

    /// `i/N` with 0 <= i < N (Kubernetes' JOB_COMPLETION_INDEX is 0-based, so shards are too).
    public static func parse(_ text: String) throws -> Shard {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let i = Int(parts[0]), let n = Int(parts[1]) else {
            throw RunnerError.badInput("expected i/N (for example 0/4), got '\(text)'")
        }
        return try Shard(index: i, count: n)
    }

    public var isWhole: Bool { count == 1 }

    /// True when user number `k` of a scenario belongs to this shard.
    @inline(__always)
    public func owns(_ k: Int) -> Bool { k % count == index }

    /// How many of the numbers `0..<n` this shard owns.
    public func share(of n: Int) -> Int { n > index ? (n - index - 1) / count + 1 : 0 }

    /// The `j`-th number of `0..<n` this shard owns.
    @inline(__always)
    public func member(_ j: Int) -> Int { index + j * count }

    public var description: String { "\(index)/\(count)" }
}
