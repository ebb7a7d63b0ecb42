import CCurlShim
import Foundation

/// The engine's speed levers (issue 18), each switchable from the environment so a measurement
/// can say what each one gave (`bench/engine-levers.sh` runs `fleet blast` with each off in turn).
/// Read once per process; the responses are the same either way (the HTTP tests run both ways).
///
/// - `FLEET_CURL_ALLOC=pool|libc` — the allocator libcurl is given at
///   `curl_global_init_mem` (CCurlShim/alloc.c; default `pool`).
/// - `FLEET_CURLU=0|1` — keep each easy handle's last URL parsed (`CURLOPT_CURLU`), so a
///   request to the same URL as the handle's previous one skips curl's URL parsing (default 1).
/// - `FLEET_HTTP_CLOCK=cached|fresh` — curl's timer callback computes its deadline from the
///   I/O loop's clock reading of this turn instead of reading the clock again (default cached).
/// - `FLEET_INLINE_BODIES=0|1` — a body of at most 16 KiB goes out in the request head's own
///   send (CURLOPT_POSTFIELDS) instead of being read by the upload callback after the head
///   (default 1): one `sendto` and one loopback segment per small POST instead of two.
/// - `FLEET_LAZY_EPOLL=0|1` — a socket curl stops watching (a keep-alive connection between two
///   requests) stays in the I/O loop's epoll set until it reports an event nobody wants or curl
///   closes it (`EpollInterest`), instead of an EPOLL_CTL_DEL now and an ADD for the next
///   request (default 1).
/// - `FLEET_DRIVE_UPLOADS=0|1` — once an upload's body starts on an established connection, the
///   I/O loop hands curl its socket as writable again at once, for as long as each round reads
///   more of the body (`IOLoop.driveWrites`), instead of an epoll round trip for each 16 KiB piece
///   (default 1): a 64 KB clip then costs one loop turn, not four, and no `epoll_ctl`.
/// - `FLEET_HEAP_RESERVE=MIB` — each I/O thread grows its malloc arena by this many MiB at start
///   and frees it again (`fleet_reserve_thread_heap`), so the arena's next MiB of growth costs no
///   `mprotect` a page (default 16, at most 48; 0 = off).
/// - `FLEET_USERS_ON=loop|pool` — where virtual users run (`fleet run`, `fleet capacity`): on
///   the engine's I/O loops, one per core, with completions and think-time timers on the same
///   thread (`IOLoop+Executor`, default), or on Swift's cooperative pool with completions
///   dispatched to a queue and Dispatch timers (as before issue 18's third pass).
public struct EngineLevers: Sendable, CustomStringConvertible {
    public var parsedURLs: Bool
    public var cachedClock: Bool
    public var usersOnLoops: Bool
    public var inlineBodies: Bool
    public var lazyEpoll: Bool
    public var driveUploads: Bool
    /// Bytes each I/O thread reserves in its malloc arena at start (0 = none).
    public var heapReserveBytes: Int

    public static let current = EngineLevers(environment: ProcessInfo.processInfo.environment)

    public init(environment: [String: String]) {
        parsedURLs = environment["FLEET_CURLU"] != "0"
        cachedClock = environment["FLEET_HTTP_CLOCK"] != "fresh"
        usersOnLoops = environment["FLEET_USERS_ON"] != "pool"
        inlineBodies = environment["FLEET_INLINE_BODIES"] != "0"
        lazyEpoll = environment["FLEET_LAZY_EPOLL"] != "0"
        driveUploads = environment["FLEET_DRIVE_UPLOADS"] != "0"
        heapReserveBytes = min(max(Int(environment["FLEET_HEAP_RESERVE"] ?? "") ?? 16, 0), 48) << 20
    }

    /// The allocator libcurl was given ("pool" or "libc"); valid once an engine exists.
    public static var allocator: String { String(cString: fleet_curl_allocator()) }

    /// "alloc=pool curlu=1 clock=cached inline=1 epoll=lazy drive=1 heap=16 users=loop", for reports.
    public var description: String {
        "alloc=\(Self.allocator) curlu=\(parsedURLs ? 1 : 0) clock=\(cachedClock ? "cached" : "fresh") inline=\(inlineBodies ? 1 : 0)"
            + " epoll=\(lazyEpoll ? "lazy" : "eager") drive=\(driveUploads ? 1 : 0) heap=\(heapReserveBytes >> 20)"
            + " users=\(usersOnLoops ? "loop" : "pool")"
    }
}
