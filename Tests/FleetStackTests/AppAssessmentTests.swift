import XCTest
import FleetCore
@testable import FleetStack

/// The assessment pipeline as polls see it, over HTTP.
final class AppAssessmentTests: XCTestCase {
    func testAttemptWalksEveryStageToAssessedAndOpensRound2() throws {
        let app = try AppStack { $0.assessmentMedianMs = 800; $0.workers = 1 }
        let u = try app.signIn()
        let s = try app.startSession(u)
        let a = try app.record(u, session: s, round: 1, clip: AppClips.speech())
        XCTAssertEqual(try app.call("GET", "/sessions/\(s)", token: u.token).json["stage"]?.string, "round1_processing")
        let (seen, last) = try app.waitTerminal(u, attempt: a)
        XCTAssertEqual(Array(seen.drop { $0 == "queued" }), ["transcribing", "assessing", "assessed"], "stages seen: \(seen)")
        XCTAssertEqual(last["status"]?.string, "assessed")
        XCTAssertEqual(last["round"]?.int, 1)
        XCTAssertEqual(last["session_id"]?.string, s)
        let submitted = try XCTUnwrap(RFC3339.parseMillis(last["submitted_at"]?.string ?? ""))
        let assessed = try XCTUnwrap(RFC3339.parseMillis(last["assessed_at"]?.string ?? ""))
        XCTAssertGreaterThanOrEqual(assessed - submitted, 790, "service time = the 800 ms median (sigma 0)")
        let asm = try XCTUnwrap(last["assessment"])
        for score in [asm["overall"], asm["dimensions"]?["fluency"], asm["dimensions"]?["pronunciation"], asm["dimensions"]?["completeness"]] {
            let v = try XCTUnwrap(score?.int)
            XCTAssertTrue((0...100).contains(v))
        }
        let conf = try XCTUnwrap(asm["confidence"]?.double)
        XCTAssertTrue(conf > 0 && conf <= 1)
        let session = try app.call("GET", "/sessions/\(s)", token: u.token).json
        XCTAssertEqual(session["stage"]?.string, "round2")
        XCTAssertEqual(session["rounds"]?[0]?["attempt_id"]?.string, a)
        XCTAssertEqual(session["rounds"]?[0]?["status"]?.string, "assessed")
    }

    func testScoresAreDeterministicForTheSameAudio() throws {
        let app = try AppStack()
        var overall: [Int] = []
        for _ in 0..<2 {
            let u = try app.signIn()
            let s = try app.startSession(u)
            let a = try app.record(u, session: s, round: 1, clip: AppClips.speech(amplitude: 0.25))
            overall.append(try app.waitTerminal(u, attempt: a).last["assessment"]?["overall"]?.int ?? -1)
        }
        XCTAssertEqual(overall[0], overall[1])
        XCTAssertGreaterThan(overall[0], 0)
    }

    /// The verdict cache (on by default) answers the second upload of the same bytes without a
    /// decode, and the assessment is the same as the decoded one; with it off, both are decoded.
    func testVerdictCacheAssessesASecondUploadOfTheSameBytesTheSame() throws {
        var assessments: [JSONValue] = []
        for cache in [true, false] {
            let app = try AppStack { $0.verdictCache = cache }
            for _ in 0..<2 {
                let u = try app.signIn()
                let s = try app.startSession(u)
                let a = try app.record(u, session: s, round: 1, clip: AppClips.speech(amplitude: 0.25))
                let last = try app.waitTerminal(u, attempt: a).last
                XCTAssertEqual(last["status"]?.string, "assessed", "cache \(cache)")
                var scores = try XCTUnwrap(last["assessment"]?.object, "cache \(cache)")
                scores["id"] = nil
                assessments.append(.object(scores))
            }
            XCTAssertEqual(assessments[assessments.count - 2], assessments[assessments.count - 1], "cache \(cache)")
            let counts = app.stack.verdictCacheCounts
            XCTAssertEqual(counts.hits, cache ? 1 : 0, "cache \(cache)")
            XCTAssertEqual(counts.misses, cache ? 1 : 0, "cache \(cache)")
        }
        XCTAssertEqual(assessments[0], assessments[2], "a cached verdict scores like a decoded one")
        XCTAssertGreaterThan(assessments[0]["overall"]?.int ?? 0, 0)
    }

    func testSilenceIsUnreliableAndSendsTheStageBack() throws {
        let app = try AppStack()
        let u = try app.signIn()
        let s = try app.startSession(u)
        let a = try app.record(u, session: s, round: 1, clip: AppClips.silence())
        let last = try app.waitTerminal(u, attempt: a).last
        XCTAssertEqual(last["status"]?.string, "unreliable")
        XCTAssertEqual(last["retryable"]?.bool, false)
        XCTAssertTrue(last["reason"]?.string?.hasPrefix("silence") ?? false, "\(last)")
        XCTAssertNil(last["assessment"])
        XCTAssertEqual(try app.call("GET", "/sessions/\(s)", token: u.token).json["stage"]?.string, "round1")
        let again = try app.record(u, session: s, round: 1, clip: AppClips.speech())
        XCTAssertEqual(try app.waitTerminal(u, attempt: again).last["status"]?.string, "assessed", "re-recording works")
    }

    func testShortClipIsUnreliableAndGarbageFails() throws {
        let app = try AppStack()
        let u = try app.signIn()
        let s = try app.startSession(u)
        let short = try app.record(u, session: s, round: 1, clip: AppClips.speech(seconds: 0.4))
        let shortResult = try app.waitTerminal(u, attempt: short).last
        XCTAssertEqual(shortResult["status"]?.string, "unreliable")
        XCTAssertTrue(shortResult["reason"]?.string?.hasPrefix("too_short") ?? false)
        let junk = try app.record(u, session: s, round: 1, clip: AppClips.garbage())
        let junkResult = try app.waitTerminal(u, attempt: junk).last
        XCTAssertEqual(junkResult["status"]?.string, "failed")
        XCTAssertEqual(junkResult["retryable"]?.bool, false)
        XCTAssertTrue(junkResult["reason"]?.string?.hasPrefix("unreadable") ?? false)
        let mismatch = try app.record(u, session: s, round: 1, clip: AppClips.speech(), contentType: "audio/flac")
        XCTAssertEqual(try app.waitTerminal(u, attempt: mismatch).last["status"]?.string, "failed")
    }

    func testFullQueueAnswers503WithRetryAfter() throws {
        let app = try AppStack { $0.maxQueue = 0 }
        let u = try app.signIn()
        let s = try app.startSession(u)
        let clip = AppClips.speech()
        let p = try app.presign(u, session: s, round: 1, clip: clip)
        XCTAssertEqual(try app.call("PUT", p.target, body: clip).status, 204)
        let r = try app.call("POST", "/attempts/\(p.id)/submit", token: u.token)
        XCTAssertEqual(r.status, 503)
        XCTAssertEqual(r.errorCode, "unavailable")
        XCTAssertEqual(r.json["error"]?["retryable"]?.bool, true)
        XCTAssertGreaterThanOrEqual(Int(r.header("Retry-After") ?? "") ?? 0, 1)
        XCTAssertEqual(try app.call("GET", "/attempts/\(p.id)", token: u.token).json["status"]?.string, "awaiting_upload")
    }

    func testWorkersBoundConcurrencySoQueueingShows() throws {
        // 6 attempts submitted together, 2 workers, 200 ms each: the last pair waits two service times.
        let app = try AppStack { $0.assessmentMedianMs = 200; $0.workers = 2 }
        let u = try app.signIn()
        let clip = AppClips.speech()
        var ready: [String] = []
        for article in ["en-daily-001", "en-daily-002", "en-daily-003", "en-daily-004", "en-travel-002", "en-travel-003"] {
            let s = try app.startSession(u, article: article, kind: "free")
            let p = try app.presign(u, session: s, round: 1, clip: clip)
            XCTAssertEqual(try app.call("PUT", p.target, body: clip).status, 204)
            ready.append(p.id)
        }
        for a in ready { XCTAssertEqual(try app.call("POST", "/attempts/\(a)/submit", token: u.token).status, 202) }
        var spans: [Int64] = []
        for a in ready {
            let last = try app.waitTerminal(u, attempt: a, timeoutS: 10).last
            XCTAssertEqual(last["status"]?.string, "assessed")
            spans.append((RFC3339.parseMillis(last["assessed_at"]?.string ?? "") ?? 0) - (RFC3339.parseMillis(last["submitted_at"]?.string ?? "") ?? 0))
        }
        XCTAssertGreaterThanOrEqual(spans.max() ?? 0, 550, "queueing behind 2 workers: \(spans)")
        XCTAssertGreaterThanOrEqual(spans.min() ?? 0, 190, "each takes the service time: \(spans)")
    }

    func testPerStageServiceTimes() throws {
        let app = try AppStack {
            $0.transcribingMedianMs = 300; $0.transcribingSigma = 0
            $0.assessingMedianMs = 60; $0.assessingSigma = 0
        }
        let u = try app.signIn()
        let s = try app.startSession(u)
        let a = try app.record(u, session: s, round: 1, clip: AppClips.speech())
        let last = try app.waitTerminal(u, attempt: a).last
        let span = (RFC3339.parseMillis(last["assessed_at"]?.string ?? "") ?? 0) - (RFC3339.parseMillis(last["submitted_at"]?.string ?? "") ?? 0)
        XCTAssertTrue((355...3_000).contains(span), "300 ms transcribing + 60 ms assessing, got \(span)")
    }
}
