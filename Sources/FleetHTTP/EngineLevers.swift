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
public struct EngineLevers: Sendable, CustomStringConvertible {
    public var parsedURLs: Bool
    public var cachedClock: Bool

    public static let current = EngineLevers(environment: ProcessInfo.processInfo.environment)

    public init(environment: [String: String]) {
        parsedURLs = environment["FLEET_CURLU"] != "0"
        cachedClock = environment["FLEET_HTTP_CLOCK"] != "fresh"
    }

    /// The allocator libcurl was given ("pool" or "libc"); valid once an engine exists.
    public static var allocator: String { String(cString: fleet_curl_allocator()) }

    /// "alloc=pool curlu=1 clock=cached", for reports.
    public var description: String {
        "alloc=\(Self.allocator) curlu=\(parsedURLs ? 1 : 0) clock=\(cachedClock ? "cached" : "fresh")"
    }
}
