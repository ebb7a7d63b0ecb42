import XCTest
import Foundation
import FleetCore
@testable import FleetStack

/// A stack restarted on the same database file keeps users, tokens, sessions and audio, and
/// finishes the assessments that were in flight when it stopped.
final class AppPersistenceTests: XCTestCase {
    func testRestartKeepsStateAndRecoversInFlightAssessments() throws {
        let dir = NSTemporaryDirectory() + "fleet-app-restart-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let db = dir + "/stack.sqlite"
        var user: AppTestUser!
        var session = "", attempt = ""
        do {
            let first = try AppStack { $0.dbPath = db; $0.assessmentMedianMs = 60_000 }
            user = try first.signIn(install: "persistent")
            session = try first.startSession(user)
            attempt = try first.record(user, session: session, round: 1, clip: AppClips.speech())
            first.stack.stop()
        }
        let second = try AppStack { $0.dbPath = db; $0.assessmentMedianMs = 20 }
        XCTAssertEqual(try second.call("GET", "/me", token: user.token).json["user_id"]?.string, user.id, "tokens survive a restart")
        XCTAssertEqual(try second.call("GET", "/sessions/\(session)", token: user.token).status, 200)
        let last = try second.waitTerminal(user, attempt: attempt).last
        XCTAssertEqual(last["status"]?.string, "assessed", "the queued attempt was picked up again")
        XCTAssertEqual(try second.call("GET", "/sessions/\(session)", token: user.token).json["stage"]?.string, "round2")
        XCTAssertEqual(try second.signIn(install: "persistent").id, user.id)
    }
}
