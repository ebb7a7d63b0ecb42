/// How a virtual user's app talks to the stack: one value shared by the whole fleet.
public struct ClientSettings: Sendable {
    /// Base URL of the API, possibly with a path prefix (`http://127.0.0.1:8080/api/v1`).
    public var baseURL: String
    public var appVersion = "1.4.0"
    public var platform = "ios"
    /// Key the bench signs sandbox transactions with (API.md: configurable on both sides).
    public var sandboxKey = "sandbox-secret"
    /// Whole-transfer timeout of one request, in seconds.
    public var requestTimeout = 30.0
    /// Timeout of an audio upload, which is larger than a JSON call.
    public var uploadTimeout = 120.0
    /// Repeats of a call after a network error or a retryable 5xx (capped exponential backoff, jitter).
    public var maxRetries = 3
    public var backoffBaseMs = 200.0
    public var backoffCapMs = 5_000.0
    /// Repeats after `429 rate_limited`, each after `Retry-After`.
    public var maxRateLimitWaits = 5
    /// The user's patience: seconds from a call's intended start after which no repeat is sent
    /// (retries, rate-limit waits); the call then fails with its last error.
    public var patienceS = 60.0

    public init(baseURL: String) {
        var b = baseURL
        while b.hasSuffix("/") { b.removeLast() }
        self.baseURL = b
    }
}
