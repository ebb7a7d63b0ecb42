import FleetClient
import FleetCore

/// Flow 7, expired subscription: the user buys a short subscription the bench signs itself (its
/// `expires_date` from the profile's `subscription_length`), so that the entitlement lapses inside
/// the run; inside a grace period an offline user keeps working from the cache; after the lapse
/// `POST /sessions` answers `402` and the paywall's expired-return follows: resubscribe and
/// practise, or leave.
public struct Expiry: Journey {
    public let name = JourneyName.expiry.rawValue
    public var keys: JourneyKeys { .quest + JourneyKeys(decisions: ["offline_in_grace"]) }
    /// Longest wait for the lapse, so a stack that never expires cannot hold a user forever.
    static let maxWaitMs = 600_000.0

    public init() {}

    @inline(never)  // async steps are not inlined: see VirtualUser (frames)
    public func walk(_ user: VirtualUser) async throws(JourneyStop) {
        try await user.launch()
        user.reach("subscribe")
        let paywall = try user.expect(await user.client.paywall(user.credentials, intended: user.nextIntended, random: &user.random))
        let length = user.world.behaviour.subscriptionLength.sample(&user.random)
        var entitlement = try await user.buyShort(paywall, durationMs: Int64(length))
        let home = try await user.openHome()
        guard let article = home.questArticleId else { throw .abandoned(step: "home", reason: "no_quest") }

        // The lapse happens on the stack's clock: wait (wall time) until the entitlement's end,
        // unless a longer entitlement from elsewhere (a subscriber cohort) outlives the short one:
        // then there is no lapse to wait for and the user simply practises.
        let left = entitlement.expiresAtMillis.map { Double($0 - WallClock.nowMillis()) } ?? length
        if left <= 2 * length + 1_000 {
            user.reach("expiry_wait")
            try await user.pause(ms: Self.msUntil(entitlement.expiresAtMillis, orAfter: length))
        }
        entitlement = try await user.fetchMe().entitlement
        if entitlement.status == "grace", let graceEnd = entitlement.graceUntilMillis {
            let left = Double(graceEnd - WallClock.nowMillis())
            if left > 0, user.decide("offline_in_grace", default: 0.5) {
                // Offline inside grace_until the app stays usable from its cache: no requests.
                user.reach("offline_grace")
                try await user.pause(ms: min(left, user.world.behaviour.offlineDuration.sample(&user.random)))
                user.reach("grace_cache")
            }
            try await user.pause(ms: Self.msUntil(graceEnd, orAfter: 0))
            entitlement = try await user.fetchMe().entitlement
        }

        user.reach("create_session")
        let key = user.newKey()
        let first = await user.client.createSession(articleId: article, kind: "daily", key: key, user.credentials,
                                                    intended: user.nextIntended, random: &user.random)
        let session: SessionInfo
        switch first {
        case let .failure(e) where e.status == 402:
            // Throws abandoned(paywall_left) when the user leaves instead of subscribing.
            try await user.paywallAfterEntitlementRequired()
            user.reach("create_session")
            session = try user.expect(await user.client.createSession(articleId: article, kind: "daily", key: key, user.credentials,
                                                                      intended: user.nextIntended, random: &user.random))
        case let .success(s):
            if !entitlement.allowsNewSessions {
                throw .failed(step: "create_session", code: "entitlement_not_enforced",
                              message: "POST /sessions succeeded although GET /me says the entitlement is \(entitlement.status)")
            }
            // The entitlement did not lapse (a longer one from elsewhere outlived the short one).
            user.reach("not_lapsed")
            user.nextIntended = MonotonicClock.now()
            session = s
        case let .failure(e):
            throw user.stop(for: e)
        }
        try await user.playSession(session)
        try await user.think("back_home")
        _ = try await user.openHome()
    }

    /// Milliseconds from now until `end` plus a margin for clock granularity; `fallback` ms when
    /// the stack gave no end; never more than `maxWaitMs`.
    static func msUntil(_ end: Int64?, orAfter fallback: Double) -> Double {
        let ms = end.map { Double($0 - WallClock.nowMillis()) } ?? fallback
        return min(maxWaitMs, max(0, ms) + 250)
    }
}

extension VirtualUser {
    /// A paid subscription of `durationMs` only, signed by the bench, so that it lapses in the run.
    @inline(never)
    func buyShort(_ paywall: PaywallInfo, durationMs: Int64) async throws(JourneyStop) -> EntitlementInfo {
        reach("purchase_short")
        guard let product = paywall.products.first(where: { $0.trialDays == 0 }) ?? paywall.products.first else {
            throw .failed(step: step, code: "no_products", message: "GET /paywall listed no products")
        }
        let now = WallClock.nowMillis()
        let tx = SandboxTransaction(transactionId: "sbx-" + newKey(), productId: product.id, purchaseMs: now,
                                    expiresMs: now + max(1, durationMs), offer: .none)
        let signed = tx.signed(key: client.settings.sandboxKey)
        let e = try expect(await client.submitTransaction(signed: signed, key: tx.transactionId,
                                                          credentials, intended: nextIntended, random: &random))
        await duplicatePurchase(signed: signed)
        return e
    }
}
