#if canImport(Glibc)
import Glibc
#endif

/// CPU time and resident memory of this process, for generator health.
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
}
