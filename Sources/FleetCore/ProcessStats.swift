#if canImport(Glibc)
import Glibc
#endif

/// CPU time and resident memory of this process, and the host's steal, for generator health.
public enum ProcessStats {
    /// User + system CPU seconds consumed so far by the whole process.
    public static func cpuSeconds() -> Double {
        var u = rusage()
        getrusage(RUSAGE_SELF.rawValue, &u)
        return Double(u.ru_utime.tv_sec) + Double(u.ru_utime.tv_usec) / 1e6
            + Double(u.ru_stime.tv_sec) + Double(u.ru_stime.tv_usec) / 1e6
    }

    /// Resident set size in bytes, from /proc/self/statm (0 where it cannot be read).
    public static func residentBytes() -> Int64 {
        guard let bytes = FileBytes.read("/proc/self/statm") else { return 0 }
        let fields = String(decoding: bytes, as: UTF8.self).split(separator: " ")
        guard fields.count > 1, let pages = Int64(fields[1]) else { return 0 }
        return pages * Int64(sysconf(Int32(_SC_PAGESIZE)))
    }

    /// CPU seconds the hypervisor has given to other guests since boot, over all of this
    /// machine's cores (the `steal` column of /proc/stat's `cpu` line); nil where there is no such
    /// column. On a shared host a run can be starved without any process here being busy: the
    /// load average does not show it, and the bench's lateness looks like its own.
    public static func hostStealSeconds() -> Double? {
        guard let bytes = FileBytes.read("/proc/stat") else { return nil }
        // The `cpu` line is the first: the rest (a line per core, the interrupt counts, thousands
        // of numbers) was made a String and split into lines each second for nothing.
        let first = bytes[..<(bytes.firstIndex(of: 0x0a) ?? bytes.endIndex)]
        return stealSeconds(procStat: String(decoding: first, as: UTF8.self), ticksPerSecond: Double(sysconf(Int32(_SC_CLK_TCK))))
    }

    /// The running kernel's boot id (/proc/sys/kernel/random/boot_id), nil where there is none.
    /// Processes that see the same one share a kernel, and so one /proc/stat: containers of one
    /// Kubernetes node, or shards started side by side on one machine.
    public static func kernelBootId() -> String? {
        guard let bytes = FileBytes.read("/proc/sys/kernel/random/boot_id") else { return nil }
        return String(decoding: bytes, as: UTF8.self).split(whereSeparator: \.isWhitespace).first.map(String.init)
    }

    /// The steal seconds in /proc/stat's text: `cpu  user nice system idle iowait irq softirq steal …`.
    public static func stealSeconds(procStat: String, ticksPerSecond: Double) -> Double? {
        guard ticksPerSecond > 0,
              let line = procStat.split(separator: "\n").first(where: { $0.hasPrefix("cpu ") }) else { return nil }
        let fields = line.split(separator: " ")
        guard fields.count > 8, let ticks = Double(fields[8]) else { return nil }
        return ticks / ticksPerSecond
    }
}
