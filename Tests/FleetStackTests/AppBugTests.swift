import XCTest
import FleetCore
@testable import FleetStack

/// Each named bug is observable when on and absent when off (the bench's invariant checks must
/// be able to catch them).
final class AppBugTests: XCTestCase {
    /// Concurrent completes: one settlement when off; several applied (XP above one award) when on.
    func testSettleRace() throws {
        for bug in [false, true] {
            let app = try AppStack { if bug { $0.bugs = [.settleRace] } }
            let u = try app.signIn()
            let s = try app.sessionReadyToComplete(u)
            let bodies = AppStack.concurrently(10) { _ in
                (try? app.call("POST", "/sessions/\(s)/complete", token: u.token, key: s)).flatMap { $0.status == 200 ? $0.json : nil }
            }
            XCTAssertEqual(bodies.count, 10)
            let award = bodies.first?["xp_awarded"]?.int ?? 0
            let total = try app.call("GET", "/me", token: u.token).json["stats"]?["xp"]?.int ?? 0
            if bug {
                XCTAssertGreaterThan(total, award, "settle-race: XP counted more than once")
                XCTAssertGreaterThan(bodies.filter { $0["replayed"]?.bool == false }.count, 1)
            } else {
                XCTAssertEqual(total, award)
                XCTAssertEqual(bodies.filter { $0["replayed"]?.bool == false }.count, 1)
            }
        }
    }

    /// A user at UTC+14 settles at 23:00 and 01:00 local time (the same UTC day): the streak grows
    /// to 2 — unless days are counted in UTC.
    func testStreakUTC() throws {
        for bug in [false, true] {
            let app = try AppStack { $0.accessTokenLifetimeS = 7 * 86_400; if bug { $0.bugs = [.streakUTC] } }
            let dayMs: Int64 = 86_400_000
            let nextUTCDay = (app.clock.nowMs() / dayMs + 1) * dayMs
            app.setNow(nextUTCDay + 9 * 3_600_000)  // 09:00Z = 23:00 at +14:00
            let u = try app.signIn(timezone: "+14:00")
            let s1 = try app.sessionReadyToComplete(u, article: "en-daily-001")
            XCTAssertEqual(try app.call("POST", "/sessions/\(s1)/complete", token: u.token, key: s1).json["streak"]?["current"]?.int, 1)
            app.setNow(nextUTCDay + 11 * 3_600_000)  // 11:00Z = 01:00 the next local day
            let s2 = try app.sessionReadyToComplete(u, article: "en-daily-002")
            let second = try app.call("POST", "/sessions/\(s2)/complete", token: u.token, key: s2).json
            if bug {
                XCTAssertEqual(second["streak"]?["current"]?.int, 1, "streak-utc: both settlements fall on one UTC day")
                XCTAssertEqual(second["streak"]?["extended"]?.bool, false)
            } else {
                XCTAssertEqual(second["streak"]?["current"]?.int, 2, "two local days in a row")
                XCTAssertEqual(second["streak"]?["extended"]?.bool, true)
            }
        }
    }

    /// Streak rules without the bug: +1 a day, back to 1 after a missed day, reads 0 once broken.
    func testStreakGrowsResetsAndReadsZeroWhenBroken() throws {
        let app = try AppStack { $0.accessTokenLifetimeS = 30 * 86_400 }
        let dayMs: Int64 = 86_400_000
        let start = (app.clock.nowMs() / dayMs + 1) * dayMs + 12 * 3_600_000
        app.setNow(start)
        let u = try app.signIn(timezone: "America/New_York")
        var streaks: [Int] = []
        for (i, offsetDays) in [0, 1, 2, 4].enumerated() {
            app.setNow(start + Int64(offsetDays) * dayMs)
            if offsetDays == 4 {
                XCTAssertEqual(try app.call("GET", "/home", token: u.token).json["streak"]?.int, 0, "a missed day breaks the streak")
            }
            let s = try app.sessionReadyToComplete(u, article: "en-daily-00\(i + 1)")
            streaks.append(try app.call("POST", "/sessions/\(s)/complete", token: u.token, key: s).json["streak"]?["current"]?.int ?? -1)
        }
        XCTAssertEqual(streaks, [1, 2, 3, 1])
    }

    /// lost-submit acknowledges a submit (202 queued) and never assesses it.
    func testLostSubmit() throws {
        for bug in [false, true] {
            let app = try AppStack { if bug { $0.bugs = [.lostSubmit]; $0.lostSubmitFraction = 1 } }
            let u = try app.signIn()
            let s = try app.startSession(u)
            let a = try app.record(u, session: s, round: 1, clip: AppClips.speech())
            let status = try app.waitTerminal(u, attempt: a, timeoutS: bug ? 1.5 : 10).last["status"]?.string
            XCTAssertEqual(status, bug ? "queued" : "assessed")
        }
    }

    /// stale-resume: home offers an abandoned session to resume.
    func testStaleResume() throws {
        for bug in [false, true] {
            let app = try AppStack { if bug { $0.bugs = [.staleResume] } }
            let u = try app.signIn()
            let s = try app.startSession(u)
            XCTAssertEqual(try app.call("POST", "/sessions/\(s)/abandon", token: u.token).status, 200)
            let resume = try app.call("GET", "/home", token: u.token).json["resume_session"]
            if bug {
                XCTAssertEqual(resume?["id"]?.string, s)
                XCTAssertEqual(resume?["stage"]?.string, "abandoned")
            } else {
                XCTAssertEqual(resume, .null)
            }
        }
    }

    func testUnknownBugIsRefused() {
        let json = Data(#"{"bugs": ["settle-rice"]}"#.utf8)
        XCTAssertThrowsError(try JSONDecoder().decode(StackSettings.self, from: json)) { XCTAssertTrue("\($0)".contains("settle-rice")) }
    }
}
