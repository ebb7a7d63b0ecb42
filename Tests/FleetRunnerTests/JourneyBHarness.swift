import FleetAudio
import FleetClient
import FleetCore
import FleetHTTP
import FleetJourneys
import FleetMetrics
import FleetStack
import Foundation
import XCTest

/// Speech-like FLAC made in code (a voiced tone gated into syllables), so the stack's analysis
/// assesses it; one clip serves every round and language.
struct SynthRecordings: RecordingSource {
    let recording: Recording

    init(seconds: Double = 3) throws {
        let rate = 16_000
        let samples: [Float] = (0..<Int(seconds * Double(rate))).map { i in
            let t = Double(i) / Double(rate)
            guard t.truncatingRemainder(dividingBy: 0.25) < 0.2 else { return 0 }
            return Float(0.3 * sin(2 * .pi * 220 * t) + 0.15 * sin(2 * .pi * 440 * t) + 0.08 * sin(2 * .pi * 880 * t))
        }
        let bytes = try AudioEncoder.encode(samples, sampleRate: rate, channels: 1, as: .flac)
        recording = Recording(body: HTTPBody(bytes: bytes), sha256: SHA256.hex(bytes), contentType: "audio/flac",
                              durationMs: Int(seconds * 1000), clipClass: "speech", name: "synth-speech.flac")
    }

    func pick(language: String, round: Int, classMix: [String: Double], random: inout SeededRandom) -> Recording? { recording }
}

/// One embedded reference stack on loopback plus the client side of a fleet, for journey tests:
/// users are walked one by one (or side by side) with a request trace each.
final class JourneyBHarness: @unchecked Sendable {
    // @unchecked: every stored property is a `let` of a Sendable or thread-safe type.
    let stack: ReferenceStack
    let dbPath: String
    let engine: HTTPEngine
    let recorder = Recorder()
    let client: APIClient
    let recordings: SynthRecordings

    /// Starts a stack with fast assessment and `adjust` applied to its settings.
    init(_ adjust: (inout StackSettings) -> Void = { _ in }) throws {
        var s = StackSettings()
        s.newUserEntitlement = "active"
        s.assessmentMedianMs = 30
        s.assessmentSigma = 0
        s.exemplarDelayMs = 0
        s.rateLimitPerSecond = 0
        dbPath = NSTemporaryDirectory() + "fleet-journeyB-\(UUID().uuidString).sqlite"
        s.dbPath = dbPath
        adjust(&s)
        stack = try ReferenceStack(settings: s)
        let url = try stack.start()
        engine = try HTTPEngine()
        var cs = ClientSettings(baseURL: url)
        cs.sandboxKey = s.sandboxKey
        client = APIClient(settings: cs, engine: engine, recorder: recorder)
        recordings = try SynthRecordings()
    }

    func shutdown() {
        engine.shutdown()
        stack.stop()
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: dbPath + suffix) }
    }

    /// Behaviour for tests: lives a hundred times faster, with `probabilities` and `thinkTimes` on top.
    func world(probabilities: [String: Double] = [:], thinkTimes: [String: ThinkTime] = [:],
               _ adjust: (inout Behaviour) -> Void = { _ in }) -> FleetWorld {
        var b = Behaviour(thinkTimes: thinkTimes, defaultThinkTime: .uniform(minMs: 500, maxMs: 1_500), probabilities: probabilities,
                          timeScale: 0.01, clipMix: ["speech": 1])
        b.relaunchDelay = .constant(ms: 1_000)
        adjust(&b)
        return FleetWorld(client: client, recorder: recorder, recordings: recordings, behaviour: b)
    }

    /// A new install (fresh device) of user `index`.
    func user(_ index: Int, world: FleetWorld, seed: UInt64 = 42) -> VirtualUser {
        let device = Device(credentials: Credentials(installId: "inst-jb-\(index)-\(UUID().uuidString.prefix(8))", locale: "en-US",
                                                     timezone: "UTC"))
        return VirtualUser(index: index, seed: seed, world: world, device: device, cohort: "subscriber", start: MonotonicClock.now())
    }

    /// Walks `journey` once under a fresh request trace; returns the outcome and the trace.
    /// Every walk also checks that the journey read only the profile keys it declares.
    func walk(_ journey: any Journey, _ user: VirtualUser, file: StaticString = #filePath,
              line: UInt = #line) async -> (JourneyOutcome, RequestTrace) {
        let trace = RequestTrace()
        let outcome = await RequestScope.$trace.withValue(trace) { await user.run(journey) }
        XCTAssertEqual(user.undeclaredKeys, [], "\(journey.name) read keys it does not declare", file: file, line: line)
        return (outcome, trace)
    }

    /// A read-back through the API, as the user (the user's own tokens).
    func get(_ template: String, _ path: String, as user: VirtualUser) async throws -> JSONValue {
        var random = SeededRandom(seed: 9, stream: 9)
        let route = try XCTUnwrap(Route(rawValue: template), "no route '\(template)'")
        switch await client.call(route, path: path, credentials: user.credentials, intended: MonotonicClock.now(), random: &random) {
        case let .success(r): return r.body
        case let .failure(e): throw e
        }
    }

    /// Every attempt the stack holds for a session, by round, with its status (read-only look at
    /// the stack's own table: the API shows only each round's current attempt).
    func attempts(session: String) throws -> [(round: Int, status: String)] {
        let db = try SQLiteDatabase(path: dbPath)
        return try db.query("SELECT round, status FROM attempts WHERE session_id = ? ORDER BY rowid", .text(session))
            .map { (Int($0.int(0)), $0.text(1)) }
    }

    /// The journey's last session id, from `GET /home`'s quest or the user's growth.
    func questSession(of user: VirtualUser) async throws -> String {
        let home = try await get("GET /home", "/home", as: user)
        return try XCTUnwrap(home["today_quest"]?["session_id"]?.string, "home: \(home.serialized())")
    }
}

import FleetSQLite
