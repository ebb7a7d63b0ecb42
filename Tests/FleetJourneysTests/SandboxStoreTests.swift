import FleetClient
import FleetCore
import FleetJourneys
import XCTest

/// The bench's own sandbox App Store: signing, verifying, and the stack's verdict on both.
final class SandboxStoreTests: XCTestCase {
    let tx = SandboxTransaction(transactionId: "sbx-1", productId: "fleet.premium.monthly", purchaseMs: 1_700_000_000_000,
                                expiresMs: 1_700_000_000_000 + 7 * 86_400_000, offer: .trial)

    func testSignedFormIsThreeBase64URLPartsWithTheAPIPayload() throws {
        let signed = tx.signed(key: "k")
        let parts = signed.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        XCTAssertEqual(parts.count, 3)
        XCTAssertFalse(signed.contains("=") || signed.contains("+") || signed.contains("/"), "base64url without padding")
        let payload = try JSONValue.parse(try XCTUnwrap(Base64URL.decode(parts[1])))
        XCTAssertEqual(payload["transaction_id"]?.string, "sbx-1")
        XCTAssertEqual(payload["original_transaction_id"]?.string, "sbx-1")
        XCTAssertEqual(payload["offer"]?.string, "trial")
        XCTAssertEqual(payload["purchase_date"]?.string, "2023-11-14T22:13:20.000Z")
        XCTAssertEqual(payload["expires_date"]?.string, "2023-11-21T22:13:20.000Z")
        // The MAC is HMAC-SHA256 over "header.payload" with the key (RFC 4231 test vectors cover HMACSHA256 itself).
        XCTAssertEqual(Base64URL.decode(parts[2]), HMACSHA256.mac(key: Array("k".utf8), message: Array((parts[0] + "." + parts[1]).utf8)))
    }

    func testVerifyRoundTripsAndRefusesAnotherKeyOrATamperedPayload() throws {
        let signed = tx.signed(key: "k")
        XCTAssertEqual(SandboxTransaction.verify(signed, key: "k"), tx)
        XCTAssertNil(SandboxTransaction.verify(signed, key: "other"))
        var parts = signed.split(separator: ".").map(String.init)
        var forged = tx
        forged.expiresMs += 86_400_000
        parts[1] = Base64URL.encode(forged.payload.serializedBytes())
        XCTAssertNil(SandboxTransaction.verify(parts.joined(separator: "."), key: "k"))
        XCTAssertNil(SandboxTransaction.verify("not-a-jws", key: "k"))
    }

    func testPeriodsInMilliseconds() {
        let day: Int64 = 86_400_000
        XCTAssertEqual(VirtualUser.periodMs("P1M"), 30 * day)
        XCTAssertEqual(VirtualUser.periodMs("P1Y"), 365 * day)
        XCTAssertEqual(VirtualUser.periodMs("P2W"), 14 * day)
        XCTAssertEqual(VirtualUser.periodMs("P7D"), 7 * day)
        XCTAssertEqual(VirtualUser.periodMs("P1Y6M"), 545 * day)
        XCTAssertEqual(VirtualUser.periodMs("garbage"), day, "an unreadable period counts as one day, never zero")
    }

    /// The stack accepts what the bench signs with the shared key and refuses another key with `400`.
    func testTheStackAcceptsTheBenchKeyAndRefusesAnother() async throws {
        let h = try JourneyHarness { $0.newUserEntitlement = "none"; $0.sandboxKey = "shared-secret" }
        defer { h.shutdown() }
        let user = h.user(1, world: h.world(), cohort: "new")
        var random = SeededRandom(seed: 1, stream: 1)
        _ = try await h.client.signIn(user.credentials, intended: MonotonicClock.now(), random: &random).get()
        let now = WallClock.nowMillis()
        let good = SandboxTransaction(transactionId: "sbx-good", productId: "fleet.premium.monthly", purchaseMs: now,
                                      expiresMs: now + 86_400_000, offer: .none)
        let bad = SandboxTransaction(transactionId: "sbx-bad", productId: "fleet.premium.monthly", purchaseMs: now,
                                     expiresMs: now + 86_400_000, offer: .none)
        let refused = await h.client.submitTransaction(signed: bad.signed(key: "sandbox-secret"), key: bad.transactionId,
                                                       user.credentials, intended: MonotonicClock.now(), random: &random)
        guard case let .failure(e) = refused else { return XCTFail("a transaction signed with another key was accepted") }
        XCTAssertEqual(e.status, 400)
        let accepted = try await h.client.submitTransaction(signed: good.signed(key: "shared-secret"), key: good.transactionId,
                                                            user.credentials, intended: MonotonicClock.now(), random: &random).get()
        XCTAssertEqual(accepted.status, "active")
        XCTAssertEqual(accepted.expiresAtMillis, good.expiresMs)
    }
}
