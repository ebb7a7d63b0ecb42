import FleetCore
import FleetHTTP

/// The retry loop shared by every call (state matrix, API.md's error table).
extension APIClient {
    /// A JSON call of `route`: builds the request (again after a refresh, with the new
    /// token), judges each answer with `make`, and repeats as the rules allow.
    func perform<T>(_ route: Route, path: CallPath, body: JSONValue?, key: String?, credentials: Credentials?,
                    intended: UInt64, random: inout SeededRandom, make: (APIResponse) -> T?) async -> Result<T, APIError> {
        let method = route.method
        let url = Concat.join(settings.baseURL, path.path)
        let bodyBytes = body.map { HTTPBody(bytes: $0.serializedBytes()) }
        let timeout = settings.requestTimeout
        let safe = Self.isSafeToRepeat(route, method: method, key: key)
        return await attempts(route, safe: safe, credentials: credentials, intended: intended, random: &random,
                              sent: Sent(path: path.path, json: body, key: key, id: path.id), request: { c in
            var headers: [HTTPHeader] = []
            headers.reserveCapacity(5)  // one allocation, not one per doubling from 1
            headers.append(HTTPHeader("Accept", "application/json"))
            if let c {
                headers.append(HTTPHeader("Accept-Language", c.locale))
                if let a = c.authorization { headers.append(HTTPHeader("Authorization", a)) }
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
    ///
    /// The loop only awaits; judging, recording and choosing what comes next is `decide`, a
    /// synchronous function that is not inlined. An async function's frame lives on its task's
    /// allocator, which keeps the slabs of the deepest frames a task reached until the task ends,
    /// and a loop around awaits makes nearly every temporary of its body a slot of the frame: with
    /// the decision inline, the slab a `home` call needed here was 7 KB, held by every thinking
    /// user (heaptrack, bench/task-memory.sh). The awaited calls are not inlined for the same reason.
    @inline(never)
    func attempts<T>(_ route: Route, safe: Bool, retries enabled: Bool = true, credentials: Credentials?,
                     intended: UInt64, random: inout SeededRandom, sent: Sent, request build: (Credentials?) -> HTTPRequest,
                     judge: (Exchanged) -> Result<T, APIError>) async -> Result<T, APIError> {
        var state = AttemptState(intended: intended, patienceEnd: intended &+ UInt64(max(0, settings.patienceS) * 1e9))
        let context = RequestScope.context  // read once for the call, handed down
        // A double tap (bug hunt): the first send of a tapped call goes out several times at once.
        if let taps = context.taps, taps.routes.contains(route), random.chance(taps.rate) { state.tapCopies = taps.copies - 1 }
        while true {
            let copies = state.tapCopies
            state.tapCopies = 0
            let outcome = copies > 0
                ? await sendTapped(build(credentials), route: route, intended: state.intendedStart, sent: sent, copies: copies,
                                   context: context, judge: judge)
                : await exchange(build(credentials), route: route, intended: state.intendedStart, sent: sent, context: context)
            switch decide(route, outcome, safe: safe, enabled: enabled, credentials: credentials, state: &state,
                          scope: context.endpointScope, random: &random, judge: judge) {
            case let .done(verdict):
                return verdict
            case let .refresh(c):
                if let failed = await refreshFailure(c, random: &random) { return .failure(failed) }
                state.intendedStart = MonotonicClock.now()
            case let .wait(next):
                state.intendedStart = next
                guard await Pause.until(next) else { return .failure(Self.aborted(route.rawValue)) }
            }
        }
    }

    /// A double tap: the call sent `copies + 1` times at once; the copies beyond the first are
    /// judged and recorded here. (Apart from `attempts`, so that an ordinary send holds no frame of it.)
    @inline(never)
    private func sendTapped<T>(_ request: HTTPRequest, route: Route, intended: UInt64, sent: Sent, copies: Int,
                               context: RequestContext, judge: (Exchanged) -> Result<T, APIError>) async -> Result<Exchanged, ExchangeFailure> {
        let all = await tapped(request, route: route, intended: intended, sent: sent, copies: copies, context: context)
        return recordCopies(all, template: route.rawValue, scope: context.endpointScope, intended: intended, judge: judge)
    }

    /// The refresh after a 401; its error when it failed.
    @inline(never)
    private func refreshFailure(_ c: Credentials, random: inout SeededRandom) async -> APIError? {
        if case .failure(let e) = await refresh(c, intended: MonotonicClock.now(), random: &random) { return e }
        return nil
    }

    /// What the retry loop carries from one send to the next.
    struct AttemptState {
        var intendedStart: UInt64
        let patienceEnd: UInt64
        var refreshed = false
        var retries = 0
        var rateLimitWaits = 0
        var tapCopies = 0

        init(intended: UInt64, patienceEnd: UInt64) {
            intendedStart = intended
            self.patienceEnd = patienceEnd
        }
    }

    /// After one send: the answer, a refresh first, or a wait before sending again.
    enum NextAttempt<T> {
        case done(Result<T, APIError>)
        case refresh(Credentials)
        case wait(until: UInt64)
    }

    /// The copies of a double tap beyond the first: judged and recorded; the first is returned.
    @inline(never)
    private func recordCopies<T>(_ all: [Result<Exchanged, ExchangeFailure>], template: String, scope: EndpointLabel.Scope?,
                                 intended: UInt64, judge: (Exchanged) -> Result<T, APIError>) -> Result<Exchanged, ExchangeFailure> {
        for other in all.dropFirst() {
            let v: Result<T, APIError>
            switch other {
            case let .success(r): v = judge(r)
            case let .failure(f): v = .failure(APIError.from(transport: f.error))
            }
            record(template, scope: scope, intended: intended, outcome: other, verdict: v)
        }
        return all[0]
    }

    /// Judges and records one send, and applies the rules above to what it answered.
    @inline(never)
    private func decide<T>(_ route: Route, _ outcome: Result<Exchanged, ExchangeFailure>, safe: Bool, enabled: Bool,
                           credentials: Credentials?, state: inout AttemptState, scope: EndpointLabel.Scope?,
                           random: inout SeededRandom, judge: (Exchanged) -> Result<T, APIError>) -> NextAttempt<T> {
        let verdict: Result<T, APIError>
        switch outcome {
        case let .success(r): verdict = judge(r)
        case let .failure(f): verdict = .failure(APIError.from(transport: f.error))
        }
        record(route.rawValue, scope: scope, intended: state.intendedStart, outcome: outcome, verdict: verdict)
        guard case let .failure(e) = verdict else { return .done(verdict) }
        if e.isAborted || Task.isCancelled || !enabled { return .done(verdict) }

        if e.status == 401, !state.refreshed, let c = credentials, c.refreshToken != nil, route != .authRefresh {
            state.refreshed = true
            return .refresh(c)
        }
        let next: UInt64
        if e.status == 429 {
            guard state.rateLimitWaits < settings.maxRateLimitWaits else { return .done(verdict) }
            state.rateLimitWaits += 1
            next = MonotonicClock.now() &+ UInt64(min(e.retryAfter ?? 1, 3600) * 1e9)
        } else if Self.shouldRepeat(e, safe: safe), state.retries < settings.maxRetries {
            state.retries += 1
            next = backoff(state.retries, retryAfter: e.retryAfter, random: &random)
        } else {
            return .done(verdict)
        }
        // Patience: the user gives up rather than wait past it (the error stands).
        guard next <= state.patienceEnd else { recorder.count(.retriesOutOfPatience); return .done(verdict) }
        recorder.count(e.status == 429 ? .rateLimitWaits : .retries)
        return .wait(until: next)
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
