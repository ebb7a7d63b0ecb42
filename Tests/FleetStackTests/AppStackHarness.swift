import Foundation
import XCTest
import FleetCore
import FleetAudio
import FleetTestSupport
@testable import FleetStack

/// A user signed in to the test stack.
struct AppTestUser {
    let id: String
    let token: String
    let refresh: String
    let installID: String
}

/// The shared embedded stack with a clock the tests move, and helpers that speak the API over HTTP.
final class AppStack: Sendable {
    let embedded: EmbeddedStack
    var stack: ReferenceStack { embedded.stack }
    var base: String { embedded.baseURL }
    var port: Int { embedded.port }
    /// The stack's clock: `clock.advance(ms:)` moves "now" for expiry, streak and plan tests.
    let clock: StackClock

    /// Starts a stack with test-friendly defaults (active entitlement, fast assessment) that
    /// `configure` may change.
    init(_ configure: (inout StackSettings) -> Void = { _ in }) throws {
        let clock = StackClock()
        self.clock = clock
        embedded = try EmbeddedStack({ s in
            s.assessmentMedianMs = 20
            configure(&s)
        }, make: { try ReferenceStack(settings: $0, clock: clock) })
    }

    deinit { embedded.stop() }

    /// One request; `json` becomes the body, `token` the bearer.
    @discardableResult
    func call(_ method: String, _ target: String, json: JSONValue? = nil, token: String? = nil,
              key: String? = nil, headers: [(String, String)] = [], body: [UInt8]? = nil) throws -> AppTestResponse {
        var h = headers
        h.append(("Accept-Language", "en"))
        if let token { h.append(("Authorization", "Bearer \(token)")) }
        if let key { h.append(("Idempotency-Key", key)) }
        var bytes = body ?? []
        if let json {
            bytes = json.serializedBytes()
            h.append(("Content-Type", "application/json; charset=utf-8"))
        }
        return try AppTestClient.send(port: port, method: method, target: target, headers: h, body: bytes)
    }

    func signIn(install: String = UUID().uuidString, locale: String = "en-US", timezone: String = "UTC",
                appVersion: String = "1.0.0", file: StaticString = #filePath, line: UInt = #line) throws -> AppTestUser {
        let r = try call("POST", "/auth/anonymous", json: ["install_id": .string(install), "timezone": .string(timezone),
                                                           "locale": .string(locale), "app_version": .string(appVersion),
                                                           "platform": "ios"])
        XCTAssertEqual(r.status, 200, r.text, file: file, line: line)
        return AppTestUser(id: r.json["user_id"]?.string ?? "", token: r.json["access_token"]?.string ?? "",
                           refresh: r.json["refresh_token"]?.string ?? "", installID: install)
    }

    /// Home's quest article, a new daily session for it, reading done: returns the session id (stage round1).
    func startSession(_ u: AppTestUser, article: String? = nil, kind: String = "daily",
                      file: StaticString = #filePath, line: UInt = #line) throws -> String {
        let articleID = try article ?? call("GET", "/home", token: u.token).json["today_quest"]?["article_id"]?.string ?? ""
        let s = try call("POST", "/sessions", json: ["article_id": .string(articleID), "kind": .string(kind)], token: u.token,
                         key: UUID().uuidString)
        XCTAssertTrue([200, 201].contains(s.status), s.text, file: file, line: line)
        let id = s.json["id"]?.string ?? ""
        let r = try call("POST", "/sessions/\(id)/reading-complete", token: u.token)
        XCTAssertEqual(r.status, 200, r.text, file: file, line: line)
        return id
    }

    /// Creates an attempt for `clip`: returns (attempt id, upload URL's target, raw response).
    func presign(_ u: AppTestUser, session: String, round: Int, clip: [UInt8], contentType: String = "audio/wav",
                 key: String = UUID().uuidString, sha: String? = nil) throws -> (id: String, target: String, response: AppTestResponse) {
        let r = try call("POST", "/sessions/\(session)/attempts",
                         json: ["round": .number(Double(round)), "sha256": .string(sha ?? SHA256.hex(clip)),
                                "size_bytes": .number(Double(clip.count)), "content_type": .string(contentType),
                                "duration_ms": 2000], token: u.token, key: key)
        let url = r.json["upload"]?["url"]?.string ?? ""
        return (r.json["attempt_id"]?.string ?? "", AppStack.target(of: url), r)
    }

    /// The request-target (`/path?query`) of an absolute URL.
    static func target(of url: String) -> String {
        guard let schemeEnd = url.range(of: "://") else { return url }
        let rest = url[schemeEnd.upperBound...]
        return rest.firstIndex(of: "/").map { String(rest[$0...]) } ?? "/"
    }

    /// Presign, PUT and submit one round; returns the attempt id.
    func record(_ u: AppTestUser, session: String, round: Int, clip: [UInt8], contentType: String = "audio/wav",
                file: StaticString = #filePath, line: UInt = #line) throws -> String {
        let p = try presign(u, session: session, round: round, clip: clip, contentType: contentType)
        XCTAssertEqual(p.response.status, 201, p.response.text, file: file, line: line)
        let put = try call("PUT", p.target, headers: [("Content-Type", contentType)], body: clip)
        XCTAssertTrue([200, 204].contains(put.status), put.text, file: file, line: line)
        let sub = try call("POST", "/attempts/\(p.id)/submit", token: u.token)
        XCTAssertEqual(sub.status, 202, sub.text, file: file, line: line)
        return p.id
    }

    /// Polls the attempt until it is terminal (or `timeoutS` passes); returns every status seen and the last body.
    func waitTerminal(_ u: AppTestUser, attempt: String, timeoutS: Double = 5, everyMs: Int = 10) throws -> (seen: [String], last: JSONValue) {
        var seen: [String] = []
        var last: JSONValue = .null
        _ = try eventually(within: timeoutS, every: Double(everyMs) / 1000) {
            last = try call("GET", "/attempts/\(attempt)", token: u.token).json
            let st = last["status"]?.string ?? "?"
            if seen.last != st { seen.append(st) }
            return ["assessed", "failed", "unreliable"].contains(st)
        }
        return (seen, last)
    }

    /// Both rounds recorded and assessed: returns the session id, ready for complete.
    func sessionReadyToComplete(_ u: AppTestUser, article: String? = nil, kind: String = "daily",
                                round1: [UInt8] = AppClips.speech(), round2: [UInt8] = AppClips.speech(amplitude: 0.3)) throws -> String {
        let s = try startSession(u, article: article, kind: kind)
        let a1 = try record(u, session: s, round: 1, clip: round1)
        XCTAssertEqual(try waitTerminal(u, attempt: a1).last["status"]?.string, "assessed")
        let a2 = try record(u, session: s, round: 2, clip: round2)
        XCTAssertEqual(try waitTerminal(u, attempt: a2).last["status"]?.string, "assessed")
        return s
    }
}

/// Synthetic audio clips for the assessment rules.
enum AppClips {
    /// A speech-like clip: a 180 Hz tone with syllable-rate amplitude modulation.
    static func speech(seconds: Double = 2, amplitude: Float = 0.2, sampleRate: Int = 16_000) -> [UInt8] {
        let samples = Synth.modulatedTone(hz: 180, seconds: seconds, rate: sampleRate, amplitude: amplitude)
        return (try? Synth.encode(samples, rate: sampleRate, as: .wavPCM16)) ?? []
    }

    static func silence(seconds: Double = 2) -> [UInt8] {
        (try? Synth.encode(Synth.silence(seconds: seconds), as: .wavPCM16)) ?? []
    }

    /// Bytes that are no audio format at all.
    static func garbage(count: Int = 4096) -> [UInt8] { (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) } }
}

extension AppStack {
    /// A sandbox signed transaction as the App Store would give it (HMAC-SHA256 with `key`).
    static func signedTransaction(id: String, product: String = "fleet.premium.monthly", purchaseMs: Int64, durationMs: Int64,
                                  offer: String = "trial", key: String = "sandbox-secret") -> String {
        let header: JSONValue = ["alg": "HS256", "typ": "JWT"]
        let payload: JSONValue = [
            "transaction_id": .string(id), "original_transaction_id": .string(id), "product_id": .string(product),
            "purchase_date": .string(RFC3339.format(millis: purchaseMs)),
            "expires_date": .string(RFC3339.format(millis: purchaseMs + durationMs)), "offer": .string(offer),
        ]
        let signingInput = Base64URL.encode(header.serializedBytes()) + "." + Base64URL.encode(payload.serializedBytes())
        return signingInput + "." + Base64URL.encode(HMACSHA256.mac(key: Array(key.utf8), message: Array(signingInput.utf8)))
    }

    /// Posts a signed transaction with a fresh Idempotency-Key.
    func purchase(_ u: AppTestUser, _ jws: String, key: String = UUID().uuidString) throws -> AppTestResponse {
        try call("POST", "/subscriptions/apple/transactions", json: ["signed_transaction": .string(jws)], token: u.token, key: key)
    }

    /// Moves the stack's clock so that "now" is `ms`; the clock only moves forward, so a target
    /// already (just) passed leaves it where it is.
    func setNow(_ ms: Int64) {
        let delta = ms - clock.nowMs()
        if delta > 0 { clock.advance(ms: delta) }
    }

    /// Runs `body` on `count` threads at once and returns what each gave.
    static func concurrently<T: Sendable>(_ count: Int, _ body: @escaping @Sendable (Int) -> T?) -> [T] {
        let collected = Box<[T]>([])
        let group = DispatchGroup()
        for i in 0..<count {
            group.enter()
            Thread.detachNewThread {
                defer { group.leave() }
                if let v = body(i) { collected.append(v) }
            }
        }
        _ = group.wait(timeout: .now() + 30)
        return collected.value
    }
}
