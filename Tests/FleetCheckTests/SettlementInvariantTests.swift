import FleetCheck
import FleetCore
import FleetMetrics
import XCTest

/// one_settlement_per_session and replay_identical on scripted answers.
final class SettlementInvariantTests: XCTestCase {
    func testCorrectSettlementsDoubleTapAndLateDuplicateStayQuiet() {
        let t = Script(), u = t.user(1)
        t.createSession(u, "s1")
        t.complete(u, "s1", Script.settlement("s1", award: 20, total: 20))
        t.complete(u, "s1", Script.settlement("s1", award: 20, total: 20, replayed: true))  // a double tap's second answer
        t.createSession(u, "s2")
        t.complete(u, "s2", Script.settlement("s2", award: 10, total: 30, streak: 1, extended: false))
        t.complete(u, "s1", Script.settlement("s1", award: 20, total: 20, replayed: true))  // a late duplicate
        t.send(u, "GET /me", "/me", body: ["stats": ["xp": 30, "streak": 1, "sessions_completed": 2]], status: 200)
        XCTAssertEqual(t.fleet.violations, [])
    }

    func testLostAnswerThenReplayedRetryStaysQuiet() {
        let t = Script(), u = t.user(1)
        t.createSession(u, "s1")
        t.complete(u, "s1", nil, status: nil)  // the effect committed, the answer was lost
        t.complete(u, "s1", Script.settlement("s1", award: 20, total: 20, replayed: true))
        t.createSession(u, "s2")
        t.complete(u, "s2", Script.settlement("s2", award: 10, total: 30, extended: false))
        t.send(u, "GET /me", "/me", body: ["stats": ["xp": 30]], status: 200)
        XCTAssertEqual(t.fleet.violations, [])
    }

    func testTwoFirstSettlementsOfOneSessionFire() {
        let t = Script(), u = t.user(1)
        t.createSession(u, "s1")
        t.complete(u, "s1", Script.settlement("s1", award: 20, total: 20))
        t.complete(u, "s1", Script.settlement("s1", award: 20, total: 20))
        let v = t.violations(.oneSettlementPerSession)
        XCTAssertEqual(v.count, 1)
        XCTAssertEqual(v.first?.user, 1)
        XCTAssertTrue(v.first?.detail.contains("settled twice") ?? false, v.first?.detail ?? "")
        XCTAssertEqual(v.first?.requests.count, 2)
    }

    func testXPCountedTwiceShowsInTheNextSettlementAndInMe() {
        let t = Script(), u = t.user(1)
        t.createSession(u, "s1")
        t.complete(u, "s1", Script.settlement("s1", award: 20, total: 20))
        t.complete(u, "s1", Script.settlement("s1", award: 20, total: 20, replayed: true))
        t.createSession(u, "s2")
        // The stack added s1's 20 XP twice: 20 + 20 + 10.
        t.complete(u, "s2", Script.settlement("s2", award: 10, total: 50, extended: false))
        XCTAssertEqual(t.violations(.oneSettlementPerSession).count, 1)
        XCTAssertTrue(t.violations(.oneSettlementPerSession)[0].detail.contains("expected 30"))

        let t2 = Script(), u2 = t2.user(2)
        t2.createSession(u2, "s1")
        t2.complete(u2, "s1", Script.settlement("s1", award: 20, total: 20))
        t2.send(u2, "GET /me", "/me", body: ["stats": ["xp": 40]], status: 200)
        XCTAssertEqual(t2.violations(.oneSettlementPerSession).count, 1)
    }

    func testAReplayThatDiffersFromTheFirstFires() {
        let t = Script(), u = t.user(1)
        t.createSession(u, "s1")
        t.complete(u, "s1", Script.settlement("s1", award: 20, total: 20))
        t.createSession(u, "s2")
        t.complete(u, "s2", Script.settlement("s2", award: 10, total: 30, extended: false))
        // A late duplicate of s1 that reports today's total instead of the stored settlement.
        t.complete(u, "s1", Script.settlement("s1", award: 20, total: 30, replayed: true))
        XCTAssertEqual(t.violations(.replayIdentical).count, 1)
        XCTAssertEqual(t.violations(.oneSettlementPerSession), [])
    }

    /// Byte for byte: a replay whose text differs only in its Unicode spelling (é as one code
    /// point, then as e + combining accent; Swift's `==` calls them equal) is not identical.
    func testAReplaySpelledDifferentlyFiresThoughItsValuesCompareEqual() {
        func answer(_ outcome: String, replayed: Bool) -> JSONValue {
            guard case var .object(o) = Script.settlement("s1", award: 20, total: 20, replayed: replayed) else { return .null }
            o["outcome"] = .string(outcome)
            return .object(o)
        }
        let composed = "d\u{e9}j\u{e0}", decomposed = "de\u{301}ja\u{300}"
        XCTAssertEqual(composed, decomposed, "the premise: String equality ignores the spelling")
        let t = Script(), u = t.user(1)
        t.createSession(u, "s1")
        t.complete(u, "s1", answer(composed, replayed: false))
        t.complete(u, "s1", answer(composed, replayed: true))
        XCTAssertEqual(t.violations(.replayIdentical), [], "the same bytes again")
        t.complete(u, "s1", answer(decomposed, replayed: true))
        XCTAssertEqual(t.violations(.replayIdentical).count, 1)
    }

    func testConcurrentCompletesOfTwoSessionsAreNotJudgedByOrder() {
        let t = Script(), u = t.user(1)
        t.createSession(u, "s1")
        t.createSession(u, "s2")
        // Two devices settle two sessions at once: s2's answer arrives first but s1 was applied first.
        u.willSend(route: .completeSession, path: "/sessions/s1/complete", body: nil, at: 0)
        t.complete(u, "s2", Script.settlement("s2", award: 10, total: 30, extended: false))
        u.exchanged(.init(template: "POST /sessions/{id}/complete", path: "/sessions/s1/complete", status: 200,
                          body: Script.settlement("s1", award: 20, total: 20), intended: 0, sent: 0, received: t.now + 1))
        t.send(u, "GET /me", "/me", body: ["stats": ["xp": 30]], status: 200)
        XCTAssertEqual(t.fleet.violations, [])
    }
}
