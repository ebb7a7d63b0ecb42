import FleetCore
import FleetHTTP

/// The retry loop shared by every call (state matrix, API.md's error table).
extension APIClient {
    /// A JSON call of `route`: builds the request (again after a refresh, with the new
    /// token), judges each answer with `make`, and repeats as the rules allow.
    func perform<T>(_ route: Route, path: String, body: JSONValue?, key: String?, credentials: Credentials?,
                    intended: UInt64, random: inout SeededRandom, make: (APIResponse) -> T?) async -> Result<T, APIError> {
        let method = route.method
        let url = settings.baseURL + path
        let bodyBytes = body.map { HTTPBody(bytes: $0.serializedBytes()) }
        let timeout = settings.requestTimeout
        let safe = Self.isSafeToRepeat(route, key: key)
        return await attempts(route, safe: safe, credentials: credentials, intended: intended, random: &random,
                              sent: Sent(path: path, json: body, key: key), request: { c in
            var headers = [HTTPHeader("Accept", "application/json")]
            if let c {
                headers.append(HTTPHeader("Accept-Language", c.locale))
                if let t = c.accessToken { headers.append(HTTPHeader("Authorization", "Bearer \(t)")) }
            }
            if bodyBytes != nil { headers.append(HTTPHeader("Content-Type", "application/json; charset=utf-8")) }
            if let key { headers.append(HTTPHeader("Idempotency-Key", key)) }
            return HTTPRequest(method: method, url: url, headers: headers, body: bodyBytes, timeout: timeout)
        }, judge: { Self.judge($0, template: route.rawValue, make: make) })
    }

    /// Sends, judges, records and decides whether to go again:
    /// - 401 → one refresh, then the same call again; a second 401 is final;
    /// - 429 → wait `Retry-After` (seconds or HTTP date; 1 s when absent), up to `maxRateLimitWaits`;
    /// - 5xx → repeat when the envelope says `retryable`, or (calls safe to repeat) when there is none;
    /// - transport failures and malformed answers → repeat only when `safe`; a refused connection
    ///   sent nothing, so it is repeated for any call;
    /// each repeat after capped, jittered exponential backoff, none past the user's patience.
    func attempts<T>(_ route: Route, safe: Bool, retries enabled: Bool = true, credentials: Credentials?,
                     intended: UInt64, random: inout SeededRandom, sent: Sent, request build: (Credentials?) -> HTTPRequest,
                     judge: (Exchanged) -> Result<T, APIError>) async -> Result<T, APIError> {
        let template = route.rawValue
        let patienceEnd = intended &+ UInt64(max(0, settings.patienceS) * 1e9)
        var intendedStart = intended
        var refreshed = false
        var retries = 0
        var rateLimitWaits = 0
        // A double tap (bug hunt): the first send of a tapped call goes out several times at once.
        var tapCopies = 0
        if let taps = RequestScope.taps, taps.routes.contains(route), random.chance(taps.rate) { tapCopies = taps.copies - 1 }
        while true {
            let outcome: Result<Exchanged, ExchangeFailure>
            if tapCopies > 0 {
                let all = await tapped(build(credentials), template: template, intended: intendedStart, sent: sent, copies: tapCopies)
                for other in all.dropFirst() {
                    let v: Result<T, APIError>
                    switch other {
                    case let .success(r): v = judge(r)
                    case let .failure(f): v = .failure(APIError.from(transport: f.error))
                    }
                    record(template, intended: intendedStart, outcome: other, verdict: v)
                }
                outcome = all[0]
                tapCopies = 0
            } else {
                outcome = await exchange(build(credentials), template: template, intended: intendedStart, sent: sent)
            }
            let verdict: Result<T, APIError>
            switch outcome {
            case let .success(r): verdict = judge(r)
            case let .failure(f): verdict = .failure(APIError.from(transport: f.error))
            }
            record(template, intended: intendedStart, outcome: outcome, verdict: verdict)
            guard case let .failure(e) = verdict else { return verdict }
            if e.isAborted || Task.isCancelled || !enabled { return verdict }

            if e.status == 401, !refreshed, let c = credentials, c.refreshToken != nil, route != .authRefresh {
                refreshed = true
                if case .failure(let re) = await refresh(c, intended: MonotonicClock.now(), random: &random) {
                    return .failure(re)
                }
                intendedStart = MonotonicClock.now()
                continue
            }
            let next: UInt64
            if e.status == 429 {
                guard rateLimitWaits < settings.maxRateLimitWaits else { return verdict }
                rateLimitWaits += 1
                next = MonotonicClock.now() &+ UInt64(min(e.retryAfter ?? 1, 3600) * 1e9)
            } else if Self.shouldRepeat(e, safe: safe), retries < settings.maxRetries {
                retries += 1
                next = backoff(retries, retryAfter: e.retryAfter, random: &random)
            } else {
                return verdict
            }
            // Patience: the user gives up rather than wait past it (the error stands).
            guard next <= patienceEnd else { recorder.count(.retriesOutOfPatience); return verdict }
            recorder.count(e.status == 429 ? .rateLimitWaits : .retries)
            intendedStart = next
            guard await Pause.until(next) else { return .failure(Self.aborted(template)) }
        }
    }

    /// Whether an error (other than 401/429) may be answered by sending the call again.
    static func shouldRepeat(_ e: APIError, safe: Bool) -> Bool {
        if let t = e.transport {
            switch t {
            case .aborted: return false
            case .connect, .dns: return true
            default: return safe
            }
        }
        if let s = e.status, (500..<600).contains(s) {
            return e.fromEnvelope ? e.retryable : safe
        }
        return safe && e.isMalformedOrLost
    }

    /// Full-jitter capped exponential backoff; honours a server's `Retry-After` when larger.
    func backoff(_ attempt: Int, retryAfter: Double?, random: inout SeededRandom) -> UInt64 {
        let cap = min(settings.backoffCapMs, settings.backoffBaseMs * Double(1 << min(attempt, 16)))
        var ms = random.unit() * cap
        if let ra = retryAfter { ms = max(ms, min(ra, 3600) * 1000) }
        return MonotonicClock.now() &+ UInt64(ms * 1e6)
    }
}
