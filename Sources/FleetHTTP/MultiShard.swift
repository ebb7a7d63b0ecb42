import CCurl
import CCurlShim
import FleetCore

/// One libcurl multi handle of an I/O thread, with its own connection cache and timer.
///
/// An I/O thread runs several of these over one epoll set because libcurl 7.88 does work in
/// proportion to the connections of a multi handle on every transfer (finding an idle connection
/// walks the host's bundle, and removing a finished handle walks the whole cache). Spreading
/// 2,000 connections over a few caches keeps that walk short; with few transfers everything
/// stays in the first shard, so a lone user still reuses one connection.
///
/// Touched only by its I/O thread (curl calls the socket and timer callbacks from inside
/// `curl_multi_socket_action` / `curl_multi_add_handle`, both on that thread).
final class MultiShard {
    let multi: UnsafeMutableRawPointer
    let index: Int
    /// Transfers currently in this multi handle (the loop sends new ones to the least busy).
    var running = 0
    /// When curl wants `socket_action(CURL_SOCKET_TIMEOUT)` next (monotonic ns; .max = never).
    var timerDeadline = UInt64.max
    /// The I/O loop's clock reading of this turn (`EngineLevers.cachedClock`), or nil to read
    /// the clock in every timer callback. Earlier than the real now by at most one turn's work,
    /// so a deadline computed from it can only come early, and curl re-arms an early timer.
    var turnClock: UInt64?
    /// Receives curl's socket interest: (socket, CURL_POLL_* bits, shard).
    private let watch: (curl_socket_t, Int32, MultiShard) -> Void

    /// Limits are this shard's share of the engine's (0 = unlimited).
    init(index: Int, maxConnections: Int, maxConnectionsPerHost: Int, connectionCacheSize: Int,
         watch: @escaping (curl_socket_t, Int32, MultiShard) -> Void) throws {
        guard let m = curl_multi_init() else {
            throw HTTPError(kind: .other, message: "curl_multi_init failed (out of memory?)")
        }
        multi = m
        self.index = index
        self.watch = watch
        let options: [(CURLMoption, Int, String)] = [
            (CURLMOPT_MAX_TOTAL_CONNECTIONS, maxConnections, "maxConnections"),
            (CURLMOPT_MAX_HOST_CONNECTIONS, maxConnectionsPerHost, "maxConnectionsPerHost"),
            (CURLMOPT_MAXCONNECTS, connectionCacheSize, "connectionCacheSize"),
        ]
        for (option, value, name) in options where value > 0 {
            let code = fleet_curl_multi_setopt_long(m, option, value)
            if code != CURLM_OK {
                curl_multi_cleanup(m)
                throw HTTPError(kind: .other, message: "\(name) = \(value) refused by libcurl: \(String(cString: curl_multi_strerror(code)))")
            }
        }
        // The shard outlives its multi handle (cleaned up in deinit), so an unretained pointer is safe.
        let me = Unmanaged.passUnretained(self).toOpaque()
        _ = fleet_curl_multi_setopt_ptr(m, CURLMOPT_SOCKETDATA, me)
        _ = fleet_curl_multi_setopt_socket_function(m) { _, socket, what, shard, _ in
            let s = Unmanaged<MultiShard>.fromOpaque(shard!).takeUnretainedValue()
            s.watch(socket, what, s)
            return 0
        }
        _ = fleet_curl_multi_setopt_ptr(m, CURLMOPT_TIMERDATA, me)
        _ = fleet_curl_multi_setopt_timer_function(m) { _, timeoutMillis, shard in
            let s = Unmanaged<MultiShard>.fromOpaque(shard!).takeUnretainedValue()
            s.timerDeadline = timeoutMillis < 0 ? .max : (s.turnClock ?? MonotonicClock.now()) + UInt64(timeoutMillis) * 1_000_000
            return 0
        }
    }

    deinit { curl_multi_cleanup(multi) }

    /// Lets curl act on a ready socket (`CURL_CSELECT_*` bits).
    func act(on socket: curl_socket_t, events: Int32) {
        var running: Int32 = 0
        _ = curl_multi_socket_action(multi, socket, events, &running)
    }

    /// Fires curl's timer when it is due.
    func fireTimerIfDue(now: UInt64) {
        guard now >= timerDeadline else { return }
        timerDeadline = .max
        var running: Int32 = 0
        _ = curl_multi_socket_action(multi, CURL_SOCKET_TIMEOUT, 0, &running)
    }
}
