import Foundation

/// How many connections this process can hold open at once, and the open-file limit behind it.
///
/// Without a cap, a run against a server that stops answering keeps opening connections for
/// users whose earlier requests still hang. Past the open-file limit `socket()` fails with EMFILE
/// and curl reports "could not connect": the bench's own limit would be counted as the server's
/// connect errors. Near the end of the ephemeral port range every `connect()` to the one
/// address:port searches a nearly full port table (measured on 2026-12-02: 28 % of the I/O
/// loops' time in `__inet_hash_connect` with ~28,000 sockets to one port). A cap below both keeps
/// every request either sent or waiting in the engine, and the wait shows in latency measured from
/// the intended start.
public enum ConnectionBudget {
    /// File descriptors kept aside for everything that is not a connection (stdio, epoll sets,
    /// SQLite files and their journals, the results stream, the embedded stack's pipes).
    public static let reservedDescriptors = 128

    /// The share of the ephemeral port range one destination may use: sockets the bench closed
    /// (a timed-out request closes its connection) hold their port for a minute in TIME_WAIT.
    static let portShare = 0.75

    /// The soft limit on open files of this process. (RLIM_INFINITY is `(rlim_t)-1`, a macro
    /// Swift does not import; `rlim_t.max` is the same bits.)
    public static func openFileLimit() -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 1024 }
        return limit.rlim_cur == rlim_t.max ? Int.max : Int(limit.rlim_cur)
    }

    /// Raises the soft open-file limit toward the hard one so `connections` fit (nil: as far as
    /// the hard limit allows); a process-wide change, so only the CLI calls it (a library caller
    /// keeps its own limits).
    public static func raiseOpenFileLimit(toFit connections: Int? = nil) {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur != rlim_t.max else { return }
        let wanted = connections.map { rlim_t($0 + reservedDescriptors) } ?? limit.rlim_max
        guard limit.rlim_cur < wanted else { return }
        limit.rlim_cur = limit.rlim_max == rlim_t.max ? wanted : min(wanted, limit.rlim_max)
        _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    }

    /// Ports the kernel hands out to outgoing connections (`ip_local_port_range`), or nil where
    /// that file does not exist (not Linux).
    public static func ephemeralPorts(rangeFile: String = "/proc/sys/net/ipv4/ip_local_port_range") -> Int? {
        guard let text = try? String(contentsOfFile: rangeFile, encoding: .utf8) else { return nil }
        let bounds = text.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }).compactMap { Int($0) }
        guard bounds.count == 2, bounds[1] >= bounds[0] else { return nil }
        return bounds[1] - bounds[0] + 1
    }

    /// The most connections a run should open at once given these limits: the open-file limit
    /// less `reservedDescriptors`, and at most `portShare` of the ephemeral ports; 1 to 1,000,000
    /// (an unlimited open-file limit off Linux still gets a number libcurl's options can hold).
    public static func automatic(openFiles: Int = openFileLimit(), ports: Int? = ephemeralPorts()) -> Int {
        var cap = openFiles >= 1_000_000 + reservedDescriptors ? 1_000_000 : openFiles - reservedDescriptors
        if let ports { cap = min(cap, Int(Double(ports) * portShare)) }
        return max(1, cap)
    }

    /// What a run prints about its automatic cap: the number and the limits behind it.
    public static func summary(cap: Int) -> String {
        let ports = ephemeralPorts().map { "\($0) ephemeral ports" } ?? "ephemeral ports unknown"
        return "connections: at most \(cap) at once (open-file limit \(openFileLimit()), \(ports); client.connections sets another cap)"
    }
}
