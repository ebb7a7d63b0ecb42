import XCTest
import FleetCore
@testable import FleetStack

/// Retry, exemplar, recorded audio, feedback and abandon, over HTTP.
final class AppEvidenceTests: XCTestCase {
    func testRetryableFailureCanBeRetriedWithoutReupload() throws {
        let app = try AppStack { $0.retryableFailureFraction = 1 }
        let u = try app.signIn()
        let s = try app.startSession(u)
        let a = try app.record(u, session: s, round: 1, clip: AppClips.speech())
        let failed = try app.waitTerminal(u, attempt: a).last
        XCTAssertEqual(failed["status"]?.string, "failed")
        XCTAssertEqual(failed["retryable"]?.bool, true)
        let r = try app.call("POST", "/attempts/\(a)/retry", token: u.token)
        XCTAssertEqual(r.status, 202, r.text)
        XCTAssertEqual(r.json["status"]?.string, "queued")
        XCTAssertEqual(try app.call("GET", "/sessions/\(s)", token: u.token).json["stage"]?.string, "round1_processing")
        XCTAssertEqual(try app.waitTerminal(u, attempt: a).last["status"]?.string, "failed", "every attempt fails at fraction 1")
    }

    func testRetryOnlyForRetryableFailures() throws {
        let app = try AppStack()
        let u = try app.signIn()
        let s = try app.startSession(u)
        let junk = try app.record(u, session: s, round: 1, clip: AppClips.garbage())
        XCTAssertEqual(try app.waitTerminal(u, attempt: junk).last["retryable"]?.bool, false)
        XCTAssertEqual(try app.call("POST", "/attempts/\(junk)/retry", token: u.token).errorCode, "stage_precondition")
        let good = try app.record(u, session: s, round: 1, clip: AppClips.speech())
        _ = try app.waitTerminal(u, attempt: good)
        XCTAssertEqual(try app.call("POST", "/attempts/\(good)/retry", token: u.token).status, 409)
    }

    func testExemplarIsPendingThenReady() throws {
        let app = try AppStack { $0.exemplarDelayMs = 5_000 }
        let u = try app.signIn()
        let s = try app.startSession(u)
        let p = try app.presign(u, session: s, round: 1, clip: AppClips.speech())
        XCTAssertEqual(try app.call("GET", "/attempts/\(p.id)/exemplar", token: u.token).status, 409, "not before assessment")
        let clip = AppClips.speech()
        let a = try app.record(u, session: s, round: 1, clip: clip)
        _ = try app.waitTerminal(u, attempt: a)
        XCTAssertEqual(try app.call("GET", "/attempts/\(a)/exemplar", token: u.token).json["status"]?.string, "pending")
        app.clock.advance(ms: 5_001)
        let ready = try app.call("GET", "/attempts/\(a)/exemplar", token: u.token).json
        XCTAssertEqual(ready["status"]?.string, "ready")
        XCTAssertFalse(ready["text"]?.string?.isEmpty ?? true)
    }

    func testAudioURLServesTheRecordingUntilRetentionEnds() throws {
        let app = try AppStack { $0.audioRetentionS = 3_600 }
        let u = try app.signIn()
        let other = try app.signIn()
        let s = try app.startSession(u)
        let clip = AppClips.speech()
        let a = try app.record(u, session: s, round: 1, clip: clip)
        let r = try app.call("GET", "/attempts/\(a)/audio", token: u.token)
        XCTAssertEqual(r.status, 200, r.text)
        let target = AppStack.target(of: r.json["url"]?.string ?? "")
        let media = try app.call("GET", target)
        XCTAssertEqual(media.status, 200)
        XCTAssertEqual(media.body, clip)
        XCTAssertEqual(media.header("content-type"), "audio/wav")
        XCTAssertEqual(try app.call("GET", target.replacingOccurrences(of: "sig=", with: "sig=x")).status, 403)
        XCTAssertEqual(try app.call("GET", "/attempts/\(a)/audio", token: other.token).status, 403)
        app.clock.advance(ms: 3_600_001)
        let fresh = try app.call("POST", "/auth/refresh", json: ["refresh_token": .string(u.refresh)]).json["access_token"]?.string
        let gone = try app.call("GET", "/attempts/\(a)/audio", token: fresh)
        XCTAssertEqual(gone.status, 410)
        XCTAssertEqual(gone.errorCode, "gone")
    }

    func testFeedbackOnAnAssessment() throws {
        let app = try AppStack()
        let u = try app.signIn()
        let other = try app.signIn()
        let s = try app.startSession(u)
        let a = try app.record(u, session: s, round: 1, clip: AppClips.speech())
        let asm = try XCTUnwrap(try app.waitTerminal(u, attempt: a).last["assessment"]?["id"]?.string)
        XCTAssertEqual(try app.call("POST", "/assessments/\(asm)/feedback", json: ["helpful": true, "comment": "clear"], token: u.token).status, 204)
        XCTAssertEqual(try app.call("POST", "/assessments/\(asm)/feedback", json: ["helpful": "yes"], token: u.token).errorCode, "invalid_request")
        XCTAssertEqual(try app.call("POST", "/assessments/\(asm)/feedback", json: ["helpful": false], token: other.token).status, 403)
        XCTAssertEqual(try app.call("POST", "/assessments/asm_nope/feedback", json: ["helpful": false], token: u.token).status, 404)
    }

    func testAbandonEndsTheSessionAndHomeForgetsIt() throws {
        let app = try AppStack()
        let u = try app.signIn()
        let s = try app.startSession(u)
        let r = try app.call("POST", "/sessions/\(s)/abandon", token: u.token)
        XCTAssertEqual(r.status, 200)
        XCTAssertEqual(r.json["stage"]?.string, "abandoned")
        XCTAssertEqual(try app.call("POST", "/sessions/\(s)/abandon", token: u.token).status, 200, "idempotent")
        XCTAssertEqual(try app.call("GET", "/home", token: u.token).json["resume_session"], .null)
        XCTAssertEqual(try app.call("POST", "/sessions/\(s)/complete", token: u.token, key: s).errorCode, "stage_precondition")
        let done = try app.sessionReadyToComplete(u, article: "en-daily-002")
        XCTAssertEqual(try app.call("POST", "/sessions/\(done)/complete", token: u.token, key: done).status, 200)
        XCTAssertEqual(try app.call("POST", "/sessions/\(done)/abandon", token: u.token).errorCode, "stage_precondition")
    }
}
