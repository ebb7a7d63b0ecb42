import FleetClient
import FleetCore

/// What the App Store account holds after a purchase: the signed transaction "Restore" resubmits.
public struct StoreReceipt: Sendable, Equatable {
    public var signed: String
    public var transactionId: String
    public var productId: String
    public var expiresMs: Int64
}

/// The paywall (flow 1 steps 17–18, flow 7) and the sandbox purchase the bench plays StoreKit for.
extension VirtualUser {
    /// The hard paywall after the plan (no close): start the trial, restore, or fail a purchase
    /// and come back; a user who leaves the app here ends the journey `abandoned(paywall_left)`.
    /// Returns the entitlement that lets the user in.
    @inline(never)  // async steps are not inlined: see VirtualUser (frames)
    public func firstLaunchPaywall() async throws(JourneyStop) -> EntitlementInfo {
        reach("paywall")
        let paywall = try expect(await client.paywall(credentials, intended: nextIntended, random: &random))
        guard let product = paywall.products.first(where: { $0.trialDays > 0 }) ?? paywall.products.first else {
            throw .failed(step: step, code: "no_products", message: "GET /paywall listed no products")
        }
        for _ in 0..<VirtualUser.maxPaywallVisits {
            try await think("paywall")
            if decide("leave_paywall", default: 0.08) { throw .abandoned(step: step, reason: "paywall_left") }
            if decide("restore", default: 0.08) {
                if let e = try await restorePurchases(), e.allowsNewSessions { return e }
                reach("paywall")
                continue
            }
            if decide("purchase_fails", default: 0.1) {
                // StoreKit reports the purchase cancelled or failed: nothing is charged, no request.
                reach("purchase_failed")
                try await think("purchase_failed")
                reach("paywall")
                continue
            }
            let e = try await buy(product, trial: product.trialDays > 0)
            if e.allowsNewSessions { return e }
            throw .failed(step: step, code: "entitlement_\(e.status)", message: "a fresh purchase left the entitlement \(e.status)")
        }
        throw .abandoned(step: step, reason: "paywall_left")
    }

    /// `402 entitlement_required` → `paywall--expired-return` (`GET /paywall`, `GET /me`): the user
    /// subscribes (no intro offer) or leaves (`abandoned(paywall_left)`).
    @inline(never)
    public func paywallAfterEntitlementRequired() async throws(JourneyStop) {
        reach("paywall_expired_return")
        let paywall = try expect(await client.paywall(credentials, intended: nextIntended, random: &random))
        let me = try await fetchMe()
        if me.entitlement.allowsNewSessions { return }  // renewed elsewhere meanwhile
        try await think("paywall")
        guard decide("subscribe", default: 0.5), let product = paywall.products.first else {
            throw .abandoned(step: step, reason: "paywall_left")
        }
        let e = try await buy(product, trial: false)
        guard e.allowsNewSessions else {
            throw .failed(step: step, code: "entitlement_\(e.status)", message: "a fresh purchase left the entitlement \(e.status)")
        }
    }

    /// `Product.purchase()` then `POST /subscriptions/apple/transactions` with a sandbox transaction
    /// the bench signs (key from the client settings). The receipt stays on the device for Restore.
    @inline(never)
    public func buy(_ product: PaywallInfo.Product, trial: Bool) async throws(JourneyStop) -> EntitlementInfo {
        reach(trial ? "purchase_trial" : "purchase")
        let now = WallClock.nowMillis()
        let length = trial ? Int64(product.trialDays) * 86_400_000 : VirtualUser.periodMs(product.period)
        let tx = SandboxTransaction(transactionId: "sbx-" + newKey(), productId: product.id, purchaseMs: now,
                                    expiresMs: now + length, offer: trial ? .trial : .none)
        let signed = tx.signed(key: client.settings.sandboxKey)
        let e = try expect(await client.submitTransaction(signed: signed, key: tx.transactionId, credentials,
                                                          intended: nextIntended, random: &random))
        device.storeReceipt = StoreReceipt(signed: signed, transactionId: tx.transactionId, productId: product.id,
                                           expiresMs: tx.expiresMs)
        await duplicatePurchase(signed: signed)
        return e
    }

    /// "Restore purchases": resubmits the store account's last transaction (the same transaction id
    /// changes nothing on the server). nil when the account has none (`paywall--restored` empty).
    @inline(never)
    public func restorePurchases() async throws(JourneyStop) -> EntitlementInfo? {
        reach("restore")
        guard let receipt = device.storeReceipt else { return nil }
        return try expect(await client.submitTransaction(signed: receipt.signed, key: receipt.transactionId, credentials,
                                                         intended: nextIntended, random: &random))
    }

    /// Visits of the hard paywall (purchase failures, empty restores) before the user gives up.
    public static let maxPaywallVisits = 4

    /// An ISO 8601 period (`P1M`, `P1Y`, `P7D`, `P2W`) in milliseconds; months are 30 days and
    /// years 365: a sandbox subscription needs no calendar.
    public static func periodMs(_ period: String) -> Int64 {
        var total: Int64 = 0, number: Int64 = 0
        for ch in period.uppercased() where ch != "P" {
            if let d = ch.wholeNumberValue { number = number * 10 + Int64(d); continue }
            switch ch {
            case "D": total += number
            case "W": total += number * 7
            case "M": total += number * 30
            case "Y": total += number * 365
            default: break
            }
            number = 0
        }
        return max(1, total) * 86_400_000
    }
}
