import FleetCheck
import FleetClient
import FleetCore
import FleetMetrics
import XCTest

/// one_terminal_status, user_isolation, deletion_complete and resume_in_progress on scripted answers.
final class ReadInvariantTests: XCTestCase {
    private func attempt(_ id: String, _ status: String) -> JSONValue {
        ["id": .string(id), "session_id": "s1", "round": 1, "status": .string(status), "retryable": true]
    }

    func testTerminalStatusHoldsUntilARetry() {
        let t = Script(), u = t.user(1)
        t.send(u, "POST /attempts/{id}/submit", "/attempts/a1/submit", body: attempt("a1", "queued"), status: 202)
        t.send(u, "GET /attempts/{id}", "/attempts/a1", body: attempt("a1", "failed"), status: 200)
        t.send(u, "POST /attempts/{id}/retry", "/attempts/a1/retry", body: attempt("a1", "queued"), status: 202)
        t.send(u, "GET /attempts/{id}", "/attempts/a1", body: attempt("a1", "assessed"), status: 200)
        XCTAssertEqual(t.fleet.violations, [])
        t.send(u, "GET /attempts/{id}", "/attempts/a1", body: attempt("a1", "queued"), status: 200)
        XCTAssertEqual(t.violations(.oneTerminalStatus).count, 1)
        t.send(u, "GET /attempts/{id}", "/attempts/a1", body: attempt("a1", "done"), status: 200)
        XCTAssertEqual(t.violations(.oneTerminalStatus).count, 2, "a status the contract does not name")
    }

    func testAnotherUsersIdsAnswer403Or404() {
        let t = Script(), a = t.user(1), b = t.user(2)
        t.createSession(a, "s1")
        t.send(a, "POST /sessions/{id}/attempts", "/sessions/s1/attempts", body: ["attempt_id": "a1", "upload": [:]], status: 201)
        t.send(b, "GET /sessions/{id}", "/sessions/s1", body: ["error": ["code": "forbidden"]], status: 403)
        t.send(b, "GET /attempts/{id}", "/attempts/a1", body: ["error": ["code": "not_found"]], status: 404)
        XCTAssertEqual(t.fleet.violations, [])
        t.send(b, "GET /attempts/{id}/audio", "/attempts/a1/audio", body: ["url": "http://x/y"], status: 200)
        t.send(b, "GET /home", "/home", body: ["resume_session": ["id": "s1", "stage": "reading"]], status: 200)
        let v = t.violations(.userIsolation)
        XCTAssertEqual(v.count, 2)
        XCTAssertEqual(Set(v.map(\.user)), [2])
    }

    func testNothingEarlierComesBackAfterADeletion() {
        let t = Script(), u = t.user(1)
        t.createSession(u, "s1")
        t.complete(u, "s1", Script.settlement("s1", award: 20, total: 20))
        t.send(u, "DELETE /me/training-data", "/me/training-data", body: ["job_id": "j"], status: 202)
        t.send(u, "GET /sessions/{id}", "/sessions/s1", body: ["error": ["code": "not_found"]], status: 404)
        t.send(u, "GET /me", "/me", body: ["stats": ["xp": 0, "streak": 0, "sessions_completed": 0]], status: 200)
        t.send(u, "GET /growth", "/growth", body: ["weeks": .array([]), "recent": .array([])], status: 200)
        XCTAssertEqual(t.fleet.violations, [])
        t.send(u, "GET /sessions/{id}", "/sessions/s1", body: Script.session("s1", stage: "completed"), status: 200)
        t.send(u, "GET /me", "/me", body: ["stats": ["xp": 20, "streak": 1, "sessions_completed": 1]], status: 200)
        t.send(u, "GET /growth", "/growth", body: ["weeks": .array([]), "recent": .array([["session_id": "s1"]])], status: 200)
        XCTAssertEqual(t.violations(.deletionComplete).count, 3)
    }

    func testResumeOffersOnlyASessionInProgress() {
        let t = Script(), u = t.user(1)
        t.createSession(u, "s1")
        t.send(u, "GET /home", "/home", body: ["resume_session": ["id": "s1", "stage": "round1"]], status: 200)
        XCTAssertEqual(t.fleet.violations, [])
        t.send(u, "POST /sessions/{id}/abandon", "/sessions/s1/abandon", body: Script.session("s1", stage: "abandoned"), status: 200)
        t.send(u, "GET /home", "/home", body: ["resume_session": .null], status: 200)
        XCTAssertEqual(t.fleet.violations, [])
        t.send(u, "GET /home", "/home", body: ["resume_session": ["id": "s1", "stage": "abandoned"]], status: 200)
        t.send(u, "GET /home", "/home", body: ["resume_session": ["id": "s1", "stage": "round1"]], status: 200)
        XCTAssertEqual(t.violations(.resumeInProgress).count, 2)
    }

    func testDateHeadersNarrowTheSkew() {
        let skew = ClockSkew(toleranceS: 5)
        XCTAssertEqual(skew.rangeMs, -5000...5000)
        // The stack's clock is 3.2 s ahead: its Date header reads the second it stamped.
        for bench in stride(from: Int64(1_000_000), to: 1_010_000, by: 700) {
            let server = bench + 3_200 + 2
            skew.observe(serverDateMs: server / 1000 * 1000, sentWallMs: bench, receivedWallMs: bench + 4)
        }
        let r = skew.rangeMs
        XCTAssertTrue(r.contains(3_200), "\(r)")
        XCTAssertLessThan(r.upperBound - r.lowerBound, 400, "\(r)")
        XCTAssertEqual(HTTPDate.parseMillis("Sun, 06 Nov 1994 08:49:37 GMT"), 784_111_777_000)
        XCTAssertNil(HTTPDate.parseMillis("Sunday, 06-Nov-94 08:49:37 GMT"))
        XCTAssertEqual(HTTPDate.parseMillis("Wed, 2 Dec 2026 00:31:33 GMT"), 1_796_171_493_000)
        XCTAssertEqual(HTTPDate.parseMillis("Thu, 01 Jan 1970 00:00:00 GMT"), 0, "the first month")
        XCTAssertEqual(HTTPDate.parseMillis("Sat, 29 Feb 2020 12:00:00 GMT"), 1_582_977_600_000)
        XCTAssertNil(HTTPDate.parseMillis("Thu, 01 jan 1970 00:00:00 GMT"), "month names are case-sensitive")
        // The last date read is kept: reading two in turns, or one differing in its last byte
        // (which only the overlapping last word holds), gives each its own value.
        for _ in 0..<2 {
            XCTAssertEqual(HTTPDate.parseMillis("Sun, 06 Nov 1994 08:49:37 GMT"), 784_111_777_000)
            XCTAssertEqual(HTTPDate.parseMillis("Sun, 06 Nov 1994 08:49:38 GMT"), 784_111_778_000)
            XCTAssertNil(HTTPDate.parseMillis("Sun, 06 Nov 1994 08:49:38 GMX"))
        }
        for bad in ["Wed, 02 Dec 2026 00:31:33 GMTX", "Wed, 02 Dek 2026 00:31:33 GMT", "Wed, 32 Dec 2026 00:31:33 GMT",
                    "Wed, 02 Dec 2026 24:00:00 GMT", "Wed, 02 Dec 2026 00:31 GMT", "", "Wed,"] {
            XCTAssertNil(HTTPDate.parseMillis(bad), bad)
        }
        // Every cut of a valid date is refused (the parser reads the header's bytes in place).
        let valid = Array("Sun, 06 Nov 1994 08:49:37 GMT")
        for n in 0..<valid.count { XCTAssertNil(HTTPDate.parseMillis(String(valid[..<n])), String(valid[..<n])) }
    }
}
