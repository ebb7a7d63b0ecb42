import FleetCore
import XCTest
@testable import FleetCheck

/// A user's history holds inline only what every user comes to hold: the facts of purchases,
/// deletions and the streak are boxed on first use, copied when two logs share them, and a
/// timezone is held once per name.
final class UserLogStorageTests: XCTestCase {
    func testAFreshHistoryIsSmallAndBoxesLaterFactsOnFirstUse() {
        XCTAssertLessThanOrEqual(MemoryLayout<UserLog>.stride, 64)
        var log = UserLog(timezone: "UTC")
        XCTAssertFalse(log.holdsLaterFacts)
        XCTAssertEqual(log.entitlement.generation, 0, "a read boxes nothing")
        XCTAssertNil(log.deletion)
        XCTAssertFalse(log.holdsLaterFacts)
        log.entitlement.generation += 1
        XCTAssertTrue(log.holdsLaterFacts)
        XCTAssertEqual(log.entitlement.generation, 1)
    }

    func testACopiedHistoryStaysAValue() {
        var a = UserLog(timezone: "UTC")
        a.entitlement.generation = 3
        a.purchasesInFlight["tx"] = 1
        var b = a
        b.entitlement.generation += 1
        b.purchasesInFlight["tx"] = nil
        b.streak = .unknown
        XCTAssertEqual(a.entitlement.generation, 3)
        XCTAssertEqual(a.purchasesInFlight, ["tx": 1])
        guard case .fresh = a.streak else { return XCTFail("the original's streak changed with the copy's") }
        XCTAssertEqual(b.entitlement.generation, 4)
        XCTAssertEqual(b.purchasesInFlight, [:])
        a.forgetAccount()
        XCTAssertEqual(a.entitlement.generation, 0)
        XCTAssertEqual(b.entitlement.generation, 4)
    }

    func testUsersOfOneTimezoneShareIt() {
        let a = UserLog(timezone: "Europe/Berlin"), b = UserLog(timezone: "Europe/Berlin"), c = UserLog(timezone: "+05:45")
        XCTAssertEqual(a.sharedZone, b.sharedZone)
        XCTAssertNotEqual(a.sharedZone, c.sharedZone)
        XCTAssertEqual(a.timezone.identifier, "Europe/Berlin")
        XCTAssertEqual(c.timezone.offsetSeconds(atMs: 0), 20_700)
    }
}
