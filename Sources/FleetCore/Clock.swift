#if canImport(Glibc)
import Glibc
#endif

/// Monotonic and wall-clock time in nanoseconds.
///
/// Every latency in Fleet is a difference of two `MonotonicClock.now()` readings, so a step of
/// the wall clock (NTP) can never make a latency negative or huge. Wall time is used only to
/// label reports and to build RFC 3339 timestamps for the API.
public enum MonotonicClock {
    /// Nanoseconds since an arbitrary fixed point (boot); only differences mean anything.
    @inline(__always)
    public static func now() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
    }
}

public enum WallClock {
    /// Nanoseconds since the Unix epoch.
    public static func nowNanos() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
    }

    /// Milliseconds since the Unix epoch.
    public static func nowMillis() -> Int64 { nowNanos() / 1_000_000 }
}
