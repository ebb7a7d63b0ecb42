import FleetClient
import FleetCore
import FleetHTTP
import FleetJourneys
import FleetMetrics
import XCTest
@testable import FleetCheck

/// A user about to pause for `VirtualUser.restMs` or longer has its checker compact its trace
/// (a thinking user's ring gives back its reserved slots); a shorter pause leaves it as it is.
final class RestTests: XCTestCase {
    private struct NoRecordings: RecordingSource {
        func pick(language: String, round: Int, classMix: [String: Double], random: inout SeededRandom) -> Recording? { nil }
    }

    func testALongPauseCompactsTheTraceAndAShortOneDoesNot() async throws {
        let engine = try HTTPEngine()
        defer { engine.shutdown() }
        let recorder = Recorder()
        let client = APIClient(settings: ClientSettings(baseURL: "http://127.0.0.1:9"), engine: engine, recorder: recorder)
        let fleet = FleetChecker(settings: CheckSettings(), seed: 1, clock: RunClock(startMono: 0, startWallMs: 0))
        let world = FleetWorld(client: client, recorder: recorder, recordings: NoRecordings(), behaviour: Behaviour(), checker: fleet)
        let credentials = Credentials(installId: "inst-rest", locale: "en-US", timezone: "UTC")
        let user = VirtualUser(index: 1, seed: 1, world: world, device: Device(credentials: credentials), cohort: "new",
                               start: MonotonicClock.now())
        let checker = fleet.user(1, scenario: "s", journey: "j", credentials: credentials)
        user.checker = checker
        let body = Array(#"{"today_quest":null}"#.utf8)
        checker.exchanged(Exchange(route: .getHome, path: "/home", status: 200, body: try JSONValue.parse(body), rawBody: body,
                                   intended: 1, sent: 1, received: 2))

        // Each pause in a task cancelled before it: the pause returns at once (interrupted),
        // after deciding whether to compact.
        func pauseCancelled(ms: Double) async {
            let t = Task {
                withUnsafeCurrentTask { $0?.cancel() }
                do { try await user.pause(ms: ms); return false } catch { return true }
            }
            let interrupted = await t.value
            XCTAssertTrue(interrupted, "a cancelled pause throws")
        }
        await pauseCancelled(ms: VirtualUser.restMs / 2)
        XCTAssertGreaterThan(checker.traceReserved, 1, "a short think leaves the ring's reserved room")
        await pauseCancelled(ms: VirtualUser.restMs)
        XCTAssertEqual(checker.traceReserved, 1)
        XCTAssertEqual(checker.traceEntries.map(\.path), ["/home"])
    }
}
