import FleetCore
import FleetJourneys
import XCTest

/// The profile keys a journey reads are checked against the ones it declares.
final class UndeclaredKeysTests: XCTestCase {
    /// A journey that reads a key it does not declare is noted (the journey harness fails on it).
    func testAKeyReadButNotDeclaredIsNoted() async throws {
        struct Sloppy: Journey {
            let name = "sloppy"
            var keys: JourneyKeys { JourneyKeys(decisions: ["declared"], thinkTimes: ["pause"]) }
            func walk(_ user: VirtualUser) async throws(JourneyStop) {
                _ = user.decide("declared", default: 0.5)
                _ = user.decide("undeclared", default: 0.5)
                try await user.think("pause")
                try await user.think("nap")
            }
        }
        let h = try JourneyHarness()
        defer { h.shutdown() }
        let user = h.user(1, world: h.world())
        _ = await user.run(Sloppy())
        XCTAssertEqual(user.undeclaredKeys, ["sloppy.undeclared", "think:nap"])
    }
}
