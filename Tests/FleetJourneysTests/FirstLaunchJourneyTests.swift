import FleetAudio
import FleetClient
import FleetCore
import FleetHTTP
import FleetJourneys
import FleetMetrics
import FleetTestSupport
import XCTest

/// Flow 1 against the embedded stack: the request sequence of the flow table and the state after.
final class FirstLaunchJourneyTests: XCTestCase {
    /// Every branch that can be fixed is fixed: notifications allowed, mic granted, trial bought.
    static let straight: [String: Double] = [
        "firstLaunch.other_practice_language": 0, "firstLaunch.allow_notifications": 1, "firstLaunch.mic_granted": 1,
        "firstLaunch.leave_paywall": 0, "firstLaunch.restore": 0, "firstLaunch.purchase_fails": 0,
        "firstLaunch.start_first_session": 0,
    ]

    func testNewInstallOnboardsDiagnosesWaitsForThePlanBuysATrialAndLandsHome() async throws {
        // New users have no entitlement (API.md default); the plan job lags the diagnostic by 3 s,
        // more than the 2 s the client waits before its first poll of the attempt.
        let h = try JourneyHarness { $0.newUserEntitlement = "none"; $0.planDelayMs = 3_000 }
        defer { h.shutdown() }
        let user = h.user(1, world: h.world(probabilities: Self.straight), cohort: "new")
        let (outcome, trace) = await h.walk(FirstLaunch(), user)
        XCTAssertEqual(outcome, .completed, "\(String(describing: h.exit(of: "firstLaunch")))\n\(trace.dump)")
        XCTAssertEqual(trace.collapsedTemplates, [
            "POST /auth/anonymous", "GET /config", "GET /me", "GET /topics", "POST /onboarding", "PUT /me/push-token",
            "POST /sessions/{id}/reading-complete", "POST /sessions/{id}/attempts", "PUT upload", "POST /attempts/{id}/submit",
            "GET /attempts/{id}", "GET /plan", "GET /paywall", "POST /subscriptions/apple/transactions", "GET /home",
        ], trace.dump)
        // The plan was not ready at first (404 plan_not_ready), then it was.
        let plans = trace.entries.filter { $0.template == "GET /plan" }
        XCTAssertEqual(plans.first?.status, 404)
        XCTAssertEqual(plans.last?.status, 200)
        XCTAssertEqual(trace.entries.first { $0.template == "POST /subscriptions/apple/transactions" }?.status, 200)

        let me = try await h.me(user)
        XCTAssertTrue(me.isOnboarded)
        XCTAssertEqual(me.entitlement.status, "trial")
        XCTAssertEqual(me.practiceLanguages.first, "en")
        // The trial lasts the product's trial days (7 on the reference stack) from now, within a minute.
        let expires = try XCTUnwrap(me.entitlement.expiresAtMillis)
        XCTAssertEqual(Double(expires - WallClock.nowMillis()), 7 * 86_400_000, accuracy: 60_000)
        XCTAssertNotNil(user.device.storeReceipt)
        let home = try await h.get("GET /home", "/home", as: user)
        XCTAssertEqual(home["plan_day"]?.int, 1)
    }

    /// The mic is denied at the diagnostic: no attempt is created until Settings grants it.
    /// Every assessment then fails with `retryable: true`: the user taps Retry twice, then the
    /// journey fails with `attempt_failed` — never re-uploading.
    func testDeniedMicThenGrantedAndRetryableFailuresAreRetriedWithoutReupload() async throws {
        let h = try JourneyHarness { $0.newUserEntitlement = "none"; $0.retryableFailureFraction = 1 }
        defer { h.shutdown() }
        var p = Self.straight
        p["firstLaunch.mic_granted"] = 0
        p["firstLaunch.open_settings"] = 1
        p["firstLaunch.grant_in_settings"] = 1
        let user = h.user(2, world: h.world(probabilities: p), cohort: "new")
        let (outcome, trace) = await h.walk(FirstLaunch(), user)
        XCTAssertEqual(outcome, .failed, trace.dump)
        XCTAssertEqual(h.exit(of: "firstLaunch")?.code, "attempt_failed")
        let t = trace.templates
        XCTAssertEqual(t.filter { $0 == "POST /sessions/{id}/attempts" }.count, 1, trace.dump)
        XCTAssertEqual(t.filter { $0 == "PUT upload" }.count, 1, trace.dump)
        XCTAssertEqual(t.filter { $0 == "POST /attempts/{id}/retry" }.count, VirtualUser.maxAssessmentRetries, trace.dump)
        XCTAssertFalse(t.contains("GET /plan"))
        let funnel = h.recorder.snapshot(RunMetadata.testing).journeys.first { $0.journey == "firstLaunch" }?.steps.map(\.step) ?? []
        XCTAssertTrue(funnel.contains("permission_denied") && funnel.contains("permission_granted"), "\(funnel)")
    }

    /// A silent take comes back `unreliable`: the user records again (a new attempt, a new upload)
    /// and the diagnostic completes.
    func testUnreliableDiagnosticTakeIsRecordedAgain() async throws {
        let h = try JourneyHarness { $0.newUserEntitlement = "none"; $0.planDelayMs = 0 }
        defer { h.shutdown() }
        let silentFirst = try SilentThenSpeech(speech: h.recordings.recording)
        let base = h.world(probabilities: Self.straight)
        let world = FleetWorld(client: base.client, recorder: base.recorder, recordings: silentFirst, behaviour: base.behaviour)
        let user = h.user(7, world: world, cohort: "new")
        let (outcome, trace) = await h.walk(FirstLaunch(), user)
        XCTAssertEqual(outcome, .completed, trace.dump)
        XCTAssertEqual(trace.templates.filter { $0 == "POST /sessions/{id}/attempts" }.count, 2, trace.dump)
        XCTAssertEqual(trace.templates.filter { $0 == "PUT upload" }.count, 2, trace.dump)
        let steps = h.recorder.snapshot(RunMetadata.testing).journeys.first { $0.journey == "firstLaunch" }?.steps.map(\.step) ?? []
        XCTAssertTrue(steps.contains("round1_rerecord"), "\(steps)")
    }

    /// Purchases that StoreKit keeps failing send the user back to the hard paywall until it leaves:
    /// no transaction reaches the server, the entitlement stays `none`.
    func testPurchaseFailuresReturnToThePaywallAndNothingIsCharged() async throws {
        let h = try JourneyHarness { $0.newUserEntitlement = "none"; $0.planDelayMs = 0 }
        defer { h.shutdown() }
        var p = Self.straight
        p["firstLaunch.purchase_fails"] = 1
        let user = h.user(3, world: h.world(probabilities: p), cohort: "new")
        let (outcome, trace) = await h.walk(FirstLaunch(), user)
        XCTAssertEqual(outcome, .abandoned, trace.dump)
        XCTAssertEqual(h.exit(of: "firstLaunch")?.code, "paywall_left")
        XCTAssertFalse(trace.templates.contains("POST /subscriptions/apple/transactions"))
        let me = try await h.me(user)
        XCTAssertEqual(me.entitlement.status, "none")
    }

    /// "Restore purchases" resubmits the store account's receipt: the same transaction id twice
    /// extends the entitlement once (API.md invariant 4).
    func testRestoreResubmitsTheReceiptWithoutExtendingTheEntitlement() async throws {
        let h = try JourneyHarness { $0.newUserEntitlement = "none"; $0.planDelayMs = 0 }
        defer { h.shutdown() }
        let first = h.user(4, world: h.world(probabilities: Self.straight), cohort: "new")
        let (o1, _) = await h.walk(FirstLaunch(), first)
        XCTAssertEqual(o1, .completed)
        let before = try await h.me(first).entitlement
        let again = VirtualUser(index: 5, seed: 42, world: h.world(), device: first.device, cohort: "new", start: MonotonicClock.now())
        var random = SeededRandom(seed: 1, stream: 1)
        let e = await again.client.submitTransaction(signed: first.device.storeReceipt!.signed,
                                                     key: first.device.storeReceipt!.transactionId, first.credentials,
                                                     intended: MonotonicClock.now(), random: &random)
        XCTAssertEqual(try e.get(), before)
        let restored = try await again.restorePurchases()
        XCTAssertEqual(restored?.status, "trial")
        let after = try await h.me(first).entitlement
        XCTAssertEqual(after, before)
    }

    /// An install already onboarded (any cohort but `new`) skips onboarding: session restoration → home.
    func testOnboardedInstallGoesStraightHome() async throws {
        let h = try JourneyHarness()
        defer { h.shutdown() }
        let user = h.user(6, world: h.world(), cohort: "trial")
        let (outcome, trace) = await h.prepareAndWalk(FirstLaunch(), user)
        XCTAssertEqual(outcome, .completed, trace.dump)
        XCTAssertEqual(trace.templates, ["GET /config", "GET /me", "GET /home"], trace.dump)
    }
}

/// The microphone records silence on the first take (the stack calls it `unreliable`), speech after.
final class SilentThenSpeech: RecordingSource, Sendable {
    private let takes = Box(0)
    let silence: Recording
    let speech: Recording

    init(speech: Recording) throws {
        let bytes = try Synth.encode(Synth.silence(seconds: 3), as: .flac)
        silence = Recording(body: HTTPBody(bytes: bytes), sha256: SHA256.hex(bytes), contentType: "audio/flac", durationMs: 3_000,
                            clipClass: "silence", name: "synth-silence.flac")
        self.speech = speech
    }

    func pick(language: String, round: Int, classMix: [String: Double], random: inout SeededRandom) -> Recording? {
        takes.mutate { n in
            n += 1
            return n == 1 ? silence : speech
        }
    }
}
