import FleetAudio
import FleetClient
import FleetCore
import FleetHTTP
import FleetJourneys
import FleetMetrics
import FleetSQLite
import FleetStack
import FleetTestSupport
import Foundation
import XCTest

/// Speech-like FLAC made in code (a voiced tone gated into syllables), so the stack's analysis
/// assesses it; one clip serves every round and language.
struct SynthRecordings: RecordingSource {
    let recording: Recording

    init(seconds: Double = 3) throws {
        let bytes = try Synth.encode(Synth.speechLike(seconds: seconds), as: .flac)
        recording = Recording(body: HTTPBody(bytes: bytes), sha256: SHA256.hex(bytes), contentType: "audio/flac",
                              durationMs: Int(seconds * 1000), clipClass: "speech", name: "synth-speech.flac")
    }

    func pick(language: String, round: Int, classMix: [String: Double], random: inout SeededRandom) -> Recording? { recording }
}

/// The shared embedded stack plus the client side of a fleet, for journey tests: users are
/// walked one by one (or side by side) with a request trace each.
final class JourneyHarness: @unchecked Sendable {
    // @unchecked: every stored property is a `let` of a Sendable or thread-safe type.
    let embedded: EmbeddedStack
    var stack: ReferenceStack { embedded.stack }
    var dbPath: String { embedded.dbPath }
    let engine: HTTPEngine
    let recorder = Recorder()
    let client: APIClient
    let recordings: SynthRecordings

    /// Starts a stack with fast assessment and `adjust` applied to its settings.
    init(_ adjust: (inout StackSettings) -> Void = { _ in }) throws {
        embedded = try EmbeddedStack { s in
            s.assessmentMedianMs = 30
            s.exemplarDelayMs = 0
            s.rateLimitPerSecond = 0
            adjust(&s)
        }
        engine = try HTTPEngine()
        var cs = ClientSettings(baseURL: embedded.baseURL)
        cs.sandboxKey = embedded.stack.settings.sandboxKey
        client = APIClient(settings: cs, engine: engine, recorder: recorder)
        recordings = try SynthRecordings()
    }

    func shutdown() {
        engine.shutdown()
        embedded.stop()
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
        let outcome = await RequestScope.with({ $0.trace = trace }) { await user.run(journey) }
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

/// Users of any cohort and locale, a warm-up before the walk, read-backs as typed values.
extension JourneyHarness {
    func user(_ index: Int, world: FleetWorld, cohort: String, locale: String = "en-US") -> VirtualUser {
        let device = Device(credentials: Credentials(installId: "inst-ja-\(index)-\(UUID().uuidString.prefix(8))", locale: locale,
                                                     timezone: "UTC"))
        return VirtualUser(index: index, seed: 42, world: world, device: device, cohort: cohort, start: MonotonicClock.now())
    }

    /// Warms `user` up to its cohort (asserting it worked) with its own trace, then walks `journey`.
    func prepareAndWalk(_ journey: any Journey, _ user: VirtualUser, file: StaticString = #filePath,
                        line: UInt = #line) async -> (JourneyOutcome, RequestTrace) {
        let ready = await Population.prepare(user)
        XCTAssertTrue(ready, "warm-up of cohort \(user.cohort) failed", file: file, line: line)
        return await walk(journey, user)
    }

    func me(_ user: VirtualUser) async throws -> MeInfo {
        let body = try await get("GET /me", "/me", as: user)
        return try XCTUnwrap(MeInfo(body))
    }

    func growth(_ user: VirtualUser) async throws -> GrowthInfo {
        let body = try await get("GET /growth", "/growth", as: user)
        return try XCTUnwrap(GrowthInfo(body))
    }

    /// The journey's ending as recorded (step and code of its exit), for failure messages and checks.
    func exit(of journey: String) -> JourneyExit? {
        recorder.snapshot(RunMetadata.testing).journeys.first { $0.journey == journey }?.exits.first
    }
}

extension RequestTrace {
    /// The trace as lines, for assertion messages.
    var dump: String { entries.map(\.description).joined(separator: "\n") }
}
