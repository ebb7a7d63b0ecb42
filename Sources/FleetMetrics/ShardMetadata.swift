/// Where a run sits in a sharded run (`fleet run --shard i/N`): what `fleet merge` checks before
/// it adds shards together, and what it reports about each shard's generator.
public struct ShardInfo: Sendable, Codable, Equatable {
    /// 0-based, like Kubernetes' JOB_COMPLETION_INDEX.
    public var index: Int
    public var count: Int
    /// SHA-256 of the profile as run (file bytes and command-line overrides): shards of one run
    /// ran the same profile, byte for byte.
    public var profileDigest: String
    /// The start barrier (`--start-at`), RFC 3339, when one was given.
    public var startAt: String?
    /// How long after the barrier this shard began (0 when it was there in time).
    public var lateByMillis: Int64
    /// The local address its connections came from (`--source-address`).
    public var sourceAddress: String?
    /// The boot id of the kernel it ran on (`ProcessStats.kernelBootId`): shards with the same one
    /// shared a machine and so read one host-steal counter, which a merge must not add up. Nil in
    /// results written before it was recorded, and where the system has none.
    public var bootId: String?

    public init(index: Int, count: Int, profileDigest: String, startAt: String? = nil, lateByMillis: Int64 = 0,
                sourceAddress: String? = nil, bootId: String? = nil) {
        self.index = index
        self.count = count
        self.profileDigest = profileDigest
        self.startAt = startAt
        self.lateByMillis = lateByMillis
        self.sourceAddress = sourceAddress
        self.bootId = bootId
    }

    /// The machine a shard ran on, for telling shards of one machine apart from the others: its
    /// kernel's boot id, or, when it recorded none (results from before), a machine of its own
    /// (`position` = the shard's place among those compared).
    public static func machineKey(bootId: String?, position: Int) -> String {
        bootId ?? "\u{0}shard \(position)"
    }

    /// `2/4`, as people read it.
    public var label: String { "\(index)/\(count)" }
}

/// One shard's generator as the merged report shows it: did it keep up, and if not, why.
public struct ShardSummary: Sendable, Codable, Equatable {
    public var index: Int
    public var count: Int
    public var runId: String
    public var startedAt: String
    public var lateByMillis: Int64
    public var sourceAddress: String?
    /// Its kernel's boot id (`ShardInfo.bootId`): shards with the same one shared a machine's CPU.
    public var bootId: String?
    public var requests: Int64
    public var usersStarted: Int64
    /// `scheduling_lag` of this shard alone, microseconds.
    public var lagP99Micros: Int64
    public var lagMaxMicros: Int64
    public var droppedArrivals: Int64
    /// The busiest second of the shard's process, % of one core, and its largest resident size.
    public var peakCPUPercent: Double
    public var peakRSSBytes: Int64
    /// Why this shard's numbers cannot be trusted (fell behind, started late); empty when it kept up.
    public var behind: [String]

    public var label: String { "\(index)/\(count)" }

    /// "machine 1", "machine 2", … for each shard of `runs`, numbered by the first shard on each
    /// boot id; nil for all when no shard recorded one (results from before it was recorded).
    public static func machines(of runs: [ShardSummary]) -> [String?] {
        guard runs.contains(where: { $0.bootId != nil }) else { return runs.map { _ in nil } }
        var numbers: [String: Int] = [:]
        return runs.enumerated().map { i, r in
            let key = ShardInfo.machineKey(bootId: r.bootId, position: i)
            if numbers[key] == nil { numbers[key] = numbers.count + 1 }
            return "machine \(numbers[key]!)"
        }
    }
}
