import XCTest
import FleetCore
@testable import FleetStack

/// Presigned uploads and submit's checks, over HTTP.
final class AppUploadTests: XCTestCase {
    func testUploadURLIsAbsoluteOnThisServerAndSigned() throws {
        let app = try AppStack()
        let u = try app.signIn()
        let s = try app.startSession(u)
        let p = try app.presign(u, session: s, round: 1, clip: AppClips.speech())
        XCTAssertEqual(p.response.status, 201)
        let upload = try XCTUnwrap(p.response.json["upload"])
        XCTAssertTrue(upload["url"]?.string?.hasPrefix(app.base + "/uploads/") ?? false, p.response.text)
        XCTAssertEqual(upload["method"]?.string, "PUT")
        XCTAssertEqual(upload["headers"]?["Content-Type"]?.string, "audio/wav")
        let exp = try XCTUnwrap(RFC3339.parseMillis(upload["expires_at"]?.string ?? ""))
        XCTAssertGreaterThan(exp, WallClock.nowMillis())
    }

    func testForgedURLAndWrongSizeAre403() throws {
        let app = try AppStack()
        let u = try app.signIn()
        let s = try app.startSession(u)
        let clip = AppClips.speech()
        let p = try app.presign(u, session: s, round: 1, clip: clip)
        let forged = p.target.replacingOccurrences(of: "size=\(clip.count)", with: "size=\(clip.count + 1)")
        XCTAssertEqual(try app.call("PUT", forged, body: clip + [0]).status, 403)
        let tampered = p.target.replacingOccurrences(of: "sig=", with: "sig=AA")
        XCTAssertEqual(try app.call("PUT", tampered, body: clip).status, 403)
        let unsigned = String(p.target.split(separator: "?")[0])
        XCTAssertEqual(try app.call("PUT", unsigned, body: clip).status, 403)
        XCTAssertEqual(try app.call("PUT", p.target, body: Array(clip.dropLast())).status, 403, "body shorter than the signed size")
        XCTAssertEqual(try app.call("PUT", p.target, body: clip).status, 204)
    }

    func testExpiredURLIs403AndTheSameKeyGivesAFreshOne() throws {
        let app = try AppStack { $0.uploadURLLifetimeS = 60 }
        let u = try app.signIn()
        let s = try app.startSession(u)
        let clip = AppClips.speech()
        let p = try app.presign(u, session: s, round: 1, clip: clip, key: "same")
        app.clock.advance(ms: 61_000)
        let late = try app.call("PUT", p.target, body: clip)
        XCTAssertEqual(late.status, 403)
        XCTAssertEqual(late.errorCode, "forbidden")
        let again = try app.presign(u, session: s, round: 1, clip: clip, key: "same")
        XCTAssertEqual(again.response.status, 201)
        XCTAssertEqual(again.id, p.id, "same key → same attempt")
        XCTAssertNotEqual(again.target, p.target, "… with a fresh URL")
        XCTAssertEqual(try app.call("PUT", again.target, body: clip).status, 204)
        XCTAssertEqual(try app.call("POST", "/attempts/\(p.id)/submit", token: u.token).status, 202)
        let other = try app.presign(u, session: s, round: 1, clip: AppClips.speech(amplitude: 0.4), key: "same")
        XCTAssertEqual(other.response.errorCode, "idempotency_conflict")
    }

    func testAttemptValidation() throws {
        let app = try AppStack { $0.maxUploadBytes = 100_000 }
        let u = try app.signIn()
        let s = try app.startSession(u)
        func attempt(_ fields: JSONObject) throws -> AppTestResponse {
            var body: JSONObject = ["round": 1, "sha256": .string(String(repeating: "a", count: 64)),
                                             "size_bytes": 1000, "content_type": "audio/wav", "duration_ms": 2000]
            for (k, v) in fields { body[k] = v }
            return try app.call("POST", "/sessions/\(s)/attempts", json: .object(body), token: u.token, key: UUID().uuidString)
        }
        XCTAssertEqual(try attempt(["content_type": "video/mp4"]).errorCode, "invalid_request")
        XCTAssertEqual(try attempt(["duration_ms": 92_001]).errorCode, "invalid_request")
        XCTAssertEqual(try attempt(["sha256": "xyz"]).errorCode, "invalid_request")
        XCTAssertEqual(try attempt(["round": 3]).errorCode, "invalid_request")
        let big = try attempt(["size_bytes": 100_001])
        XCTAssertEqual(big.status, 413)
        XCTAssertEqual(big.errorCode, "payload_too_large")
        XCTAssertEqual(try attempt([:]).status, 201)
    }

    func testSubmitWithoutUploadIs409UploadMissing() throws {
        let app = try AppStack()
        let u = try app.signIn()
        let s = try app.startSession(u)
        let p = try app.presign(u, session: s, round: 1, clip: AppClips.speech())
        let r = try app.call("POST", "/attempts/\(p.id)/submit", token: u.token)
        XCTAssertEqual(r.status, 409)
        XCTAssertEqual(r.errorCode, "upload_missing")
    }

    func testChecksumMismatchIs400ThenACorrectRePUTSubmits() throws {
        let app = try AppStack()
        let u = try app.signIn()
        let s = try app.startSession(u)
        let clip = AppClips.speech()
        var corrupt = clip
        corrupt[corrupt.count / 2] ^= 0xFF
        let p = try app.presign(u, session: s, round: 1, clip: clip)
        XCTAssertEqual(try app.call("PUT", p.target, body: corrupt).status, 204)
        let bad = try app.call("POST", "/attempts/\(p.id)/submit", token: u.token)
        XCTAssertEqual(bad.status, 400)
        XCTAssertEqual(bad.errorCode, "upload_checksum_mismatch")
        XCTAssertEqual(try app.call("PUT", p.target, body: clip).status, 204, "a repeated PUT replaces the object")
        let ok = try app.call("POST", "/attempts/\(p.id)/submit", token: u.token)
        XCTAssertEqual(ok.status, 202, ok.text)
        let again = try app.call("POST", "/attempts/\(p.id)/submit", token: u.token)
        XCTAssertEqual(again.status, 202, "submit is idempotent")
        XCTAssertEqual(try app.call("PUT", p.target, body: clip).status, 409, "no replacing audio after submit")
    }

    func testAudioLivesInFilesThatRefusedUploadsNeverLeaveAndDeletionRemoves() throws {
        let dir = NSTemporaryDirectory() + "fleet-app-audio-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let app = try AppStack { $0.dbPath = dir + "/stack.sqlite" }
        let audioDir = dir + "/stack.sqlite.audio"
        let u = try app.signIn()
        let s = try app.startSession(u)
        let clip = AppClips.speech()
        let a = try app.record(u, session: s, round: 1, clip: clip)
        XCTAssertEqual(FileManager.default.contents(atPath: audioDir + "/" + a).map { [UInt8]($0) }, clip)
        XCTAssertEqual(try app.waitTerminal(u, attempt: a).last["status"]?.string, "assessed")
        let p = try app.presign(u, session: s, round: 2, clip: clip)
        XCTAssertEqual(p.response.status, 201)
        let forged = try app.call("PUT", p.target.replacingOccurrences(of: "sig=", with: "sig=x"), body: clip)
        XCTAssertEqual(forged.status, 403, forged.text)
        XCTAssertEqual(try app.call("PUT", "/uploads/\(a)" + p.target.drop { $0 != "?" }, body: clip).status, 403, "signed for another path")
        let files = try FileManager.default.contentsOfDirectory(atPath: audioDir)
        XCTAssertEqual(files, [a], "refused uploads leave nothing behind")
        XCTAssertEqual(try app.call("DELETE", "/sessions/\(s)", token: u.token).status, 204)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: audioDir), [], "deleting the session deletes its audio")
    }
}
