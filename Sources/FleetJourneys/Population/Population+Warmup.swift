import FleetClient
import FleetCore

/// The warm-up steps: plain API calls with no think time and no journey metrics.
///
/// It shares the user's device (credentials, store receipt) but draws from its own generator, so
/// that a cohort's warm-up does not shift the decisions the journey will make.
struct Warmup {
    struct Failure: Error {
        var step: String
        var code: String
    }

    let user: VirtualUser
    var random: SeededRandom
    var step = "auth"

    init(user: VirtualUser) {
        self.user = user
        var copy = user.random  // a copy: the user's own sequence is not advanced
        random = SeededRandom(seed: copy.next() ^ 0x57A2_7E11, stream: UInt64(truncatingIfNeeded: user.index))
    }

    var client: APIClient { user.client }
    var c: Credentials { user.credentials }

    mutating func run(_ plan: WarmupPlan) async throws(Failure) {
        step = "auth"
        _ = try need(await client.signIn(c, intended: MonotonicClock.now(), random: &random))
        // The codes the server accepts: onboarding sends one of them, as the app does.
        step = "config"
        let config = try need(await client.config(c, intended: MonotonicClock.now(), random: &random))
        let language = LanguageSupport(config: config).practiceLanguage(forLocale: c.locale)
        step = "onboarding"
        let topics = try need(await client.topics(c, intended: MonotonicClock.now(), random: &random))
        let answers = OnboardingAnswers(practiceLanguage: language, goal: "daily_life", scenario: "small_talk",
                                        topics: Array(topics.prefix(2).map(\.id)), selfLevel: "intermediate",
                                        commitmentMinutes: 10, reminderTime: "08:30")
        let onboarding = try need(await client.onboarding(answers, c, intended: MonotonicClock.now(), random: &random))
        step = "diagnostic"
        if plan.diagnostic {
            try await assessRounds(onboarding.session, rounds: 1, language: language)
        } else {
            _ = try need(await client.abandon(session: onboarding.session.id, c, intended: MonotonicClock.now(), random: &random))
        }

        step = "purchase"
        let paywall = try need(await client.paywall(c, intended: MonotonicClock.now(), random: &random))
        guard let product = paywall.products.first else { throw Failure(step: step, code: "no_products") }
        for p in plan.purchases { try await purchase(p, product: product) }

        step = "history"
        if plan.history > 0 {
            let home = try need(await client.home(c, intended: MonotonicClock.now(), random: &random))
            let page = try need(await client.articles(language: language, status: "unlocked", c, intended: MonotonicClock.now(),
                                                      random: &random))
            // Not today's quest: the journey's daily quest starts fresh.
            let candidates = page.items.filter { !$0.locked && $0.id != home.questArticleId }
            for i in 0..<plan.history where !candidates.isEmpty {
                let article = candidates[i % candidates.count]
                var s = try need(await client.createSession(articleId: article.id, kind: "free", key: Hex.encode(key()), c,
                                                            intended: MonotonicClock.now(), random: &random))
                if s.stage == "reading" {
                    s = try need(await client.readingComplete(s.id, c, intended: MonotonicClock.now(), random: &random))
                }
                try await assessRounds(s, rounds: 2, language: language)
                _ = try need(await client.complete(session: s.id, c, intended: MonotonicClock.now(), random: &random))
            }
        }
    }

    /// A sandbox transaction signed like the journeys' (`buy`), kept as the device's receipt.
    private mutating func purchase(_ p: WarmupPlan.Purchase, product: PaywallInfo.Product) async throws(Failure) {
        let now = WallClock.nowMillis()
        let day: Int64 = 86_400_000
        let tx: SandboxTransaction
        switch p {
        case let .trial(remaining):
            tx = SandboxTransaction(transactionId: "sbx-" + Hex.encode(key()), productId: product.id, purchaseMs: now,
                                    expiresMs: now + remaining, offer: .trial)
        case .active:
            tx = SandboxTransaction(transactionId: "sbx-" + Hex.encode(key()), productId: product.id, purchaseMs: now,
                                    expiresMs: now + VirtualUser.periodMs(product.period), offer: .none)
        case .lapsed:
            tx = SandboxTransaction(transactionId: "sbx-" + Hex.encode(key()), productId: product.id, purchaseMs: now - 31 * day,
                                    expiresMs: now - day, offer: .none)
        }
        let signed = tx.signed(key: client.settings.sandboxKey)
        _ = try need(await client.submitTransaction(signed: signed, key: tx.transactionId, c, intended: MonotonicClock.now(),
                                                    random: &random))
        user.device.storeReceipt = StoreReceipt(signed: signed, transactionId: tx.transactionId, productId: product.id,
                                                expiresMs: tx.expiresMs)
        await user.duplicatePurchase(signed: signed)
    }

    /// Records (speech clips only), uploads, submits and polls each round until assessed; up to
    /// three takes a round (an `unreliable` take is recorded again, a retryable failure retried).
    private mutating func assessRounds(_ session: SessionInfo, rounds: Int, language: String) async throws(Failure) {
        var current = session
        if current.stage == "reading" {
            current = try need(await client.readingComplete(current.id, c, intended: MonotonicClock.now(), random: &random))
        }
        for round in 1...rounds {
            var assessed = false
            for _ in 0..<3 where !assessed {
                guard let rec = user.world.recordings.pick(language: current.language.isEmpty ? language : current.language,
                                                           round: round, classMix: ["speech": 1], random: &random) else {
                    throw Failure(step: step, code: "no_recording")
                }
                let attemptKey = Hex.encode(key())
                let ticket = try need(await client.createAttempt(
                    session: current.id, round: round, sha256: rec.sha256, sizeBytes: rec.sizeBytes, contentType: rec.contentType,
                    durationMs: min(rec.durationMs, 90_000), key: attemptKey, c, intended: MonotonicClock.now(), random: &random))
                try await upload(ticket, session: current.id, round: round, recording: rec, key: attemptKey)
                var a = try need(await client.submit(attempt: ticket.attemptId, c, intended: MonotonicClock.now(), random: &random))
                a = try await pollUntilTerminal(a)
                if a.status == "failed", a.retryable {
                    a = try need(await client.retryAttempt(a.id, c, intended: MonotonicClock.now(), random: &random))
                    a = try await pollUntilTerminal(a)
                }
                assessed = a.status == "assessed"
            }
            guard assessed else { throw Failure(step: step, code: "not_assessed") }
        }
    }

    /// The recording steps' `PUT` (`putUpload`): a URL refused as expired is presigned again under
    /// the attempt's own key and put once more. It runs on the user with the warm-up's generator
    /// swapped in (and swapped back), so the warm-up still leaves the journey's decisions alone;
    /// a stop (the run's end, a kill) comes back as `interrupted`.
    private mutating func upload(_ ticket: UploadTicket, session: String, round: Int, recording rec: Recording,
                                 key: String) async throws(Failure) {
        let own = user.random
        user.random = random
        user.nextIntended = MonotonicClock.now()  // warm-up calls are meant to go out now, as the others here
        defer {
            random = user.random
            user.random = own
        }
        do throws(JourneyStop) {
            try await user.putUpload(ticket, session: session, round: round, recording: rec, key: key)
        } catch {
            throw Failure(step: step, code: error.code ?? "failed")
        }
    }

    private mutating func pollUntilTerminal(_ first: AttemptInfo) async throws(Failure) -> AttemptInfo {
        var a = first
        let policy = user.device.poll
        let deadline = MonotonicClock.now() &+ UInt64(policy.giveUpMs * 1e6)
        // Quicker than the app's first poll (nobody watches a warm-up), backing off like it.
        var interval = min(500, policy.initialMs)
        while !a.isTerminal {
            guard MonotonicClock.now() < deadline else { throw Failure(step: step, code: "check_later") }
            guard await Pause.until(MonotonicClock.now() &+ UInt64(interval * 1e6)) else { throw Failure(step: step, code: "interrupted") }
            interval = min(policy.maxMs, interval * 1.5)
            a = try need(await client.attempt(a.id, c, intended: MonotonicClock.now(), random: &random))
        }
        return a
    }

    private mutating func key() -> [UInt8] {
        (0..<2).flatMap { _ -> [UInt8] in
            let v = random.next()
            return (0..<8).map { UInt8(truncatingIfNeeded: v >> ($0 * 8)) }
        }
    }

    private func need<T>(_ r: Result<T, APIError>) throws(Failure) -> T {
        switch r {
        case let .success(v): return v
        case let .failure(e): throw Failure(step: step, code: e.code)
        }
    }
}
