import XCTest
import Foundation
import FleetCore
@testable import FleetStack

/// Settings decoding and the time rules the stack relies on.
final class AppSettingsTests: XCTestCase {
    func testMissingKeysKeepDefaults() throws {
        let s = try JSONDecoder().decode(StackSettings.self, from: Data(#"{"workers": 8}"#.utf8))
        XCTAssertEqual(s.workers, 8)
        XCTAssertEqual(s.assessmentMedianMs, 300)
        XCTAssertEqual(s.newUserEntitlement, "none")
        XCTAssertEqual(s.sandboxKey, "sandbox-secret")
        XCTAssertTrue(s.verdictCache)
        let off = try JSONDecoder().decode(StackSettings.self, from: Data(#"{"verdictCache": false}"#.utf8))
        XCTAssertFalse(off.verdictCache)
    }

    func testUnknownKeyIsNamed() {
        XCTAssertThrowsError(try JSONDecoder().decode(StackSettings.self, from: Data(#"{"wrokers": 8}"#.utf8))) { error in
            XCTAssertTrue("\(error)".contains("wrokers"), "\(error)")
        }
    }

    func testLoadNamesTheFileAndTheField() throws {
        let path = NSTemporaryDirectory() + "fleet-settings-\(UUID().uuidString).json"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data(#"{"newUserEntitlement": "forever"}"#.utf8).write(to: URL(fileURLWithPath: path))
        XCTAssertThrowsError(try StackSettings.load(path: path)) { error in
            XCTAssertTrue("\(error)".contains(path) && "\(error)".contains("newUserEntitlement"), "\(error)")
        }
        try Data(#"{"workers": "many"}"#.utf8).write(to: URL(fileURLWithPath: path))
        XCTAssertThrowsError(try StackSettings.load(path: path)) { error in
            XCTAssertTrue("\(error)".contains("workers"), "\(error)")
        }
    }

    func testNonLoopbackHostIsRefused() {
        var s = StackSettings()
        s.host = "0.0.0.0"
        XCTAssertThrowsError(try ReferenceStack(settings: s))
    }

    func testLocalDayFollowsTheUsersTimezone() {
        // 2026-11-29T23:30:00Z is already the 30th in Shanghai (+08:00) and still the 29th in New York.
        let ms = RFC3339.parseMillis("2026-11-29T23:30:00.000Z")!
        let utc = UserTimeZone("UTC").localDay(atMs: ms)
        XCTAssertEqual(UserTimeZone("Asia/Shanghai").localDay(atMs: ms), utc + 1)
        XCTAssertEqual(UserTimeZone("+08:00").localDay(atMs: ms), utc + 1)
        XCTAssertEqual(UserTimeZone("America/New_York").localDay(atMs: ms), utc)
        XCTAssertEqual(UserTimeZone("Not/AZone").identifier, "UTC")
        XCTAssertEqual(UserTimeZone("-05:30").offsetSeconds(atMs: ms), -(5 * 3600 + 1800))
    }

    /// The stack parses client timestamps (signed transactions) with FleetCore's RFC3339: offsets,
    /// long fractions and bad input must give these values, never a trap.
    func testTimestampParsingIsStrictAndNeverTraps() {
        XCTAssertEqual(RFC3339.parseMillis("1970-01-01T00:00:01.5Z"), 1500)
        XCTAssertEqual(RFC3339.parseMillis("1970-01-01T01:00:00+01:00"), 0)
        XCTAssertEqual(RFC3339.parseMillis("1970-01-01T00:00:00.123456789Z"), 123)
        XCTAssertNil(RFC3339.parseMillis("1970-01-01"))
        XCTAssertNil(RFC3339.parseMillis("1970-13-01T00:00:00Z"))
        XCTAssertEqual(RFC3339.format(millis: 1500), "1970-01-01T00:00:01.500Z")
    }

    func testAppVersionsCompareNumerically() {
        XCTAssertLessThan(AppVersion("1.9.0")!, AppVersion("1.10.0")!)
        XCTAssertFalse(AppVersion("2.0")! < AppVersion("2.0.0")!)
        XCTAssertNil(AppVersion("1.x"))
    }

    func testStaleTemporaryDatabasesOfDeadProcessesAreSwept() throws {
        var dead: Int32 = 4_000_000
        while kill(dead, 0) == 0 || errno != ESRCH { dead -= 1 }
        let stale = NSTemporaryDirectory() + "fleet-stack-\(dead)-db_test.sqlite-wal"
        let mine = NSTemporaryDirectory() + "fleet-stack-\(getpid())-db_test.sqlite"
        XCTAssertTrue(FileManager.default.createFile(atPath: stale, contents: Data([1])))
        XCTAssertTrue(FileManager.default.createFile(atPath: mine, contents: Data([1])))
        defer { try? FileManager.default.removeItem(atPath: mine) }
        let stack = try ReferenceStack(settings: StackSettings())
        stack.stop()
        XCTAssertFalse(FileManager.default.fileExists(atPath: stale), "a dead process's database is removed")
        XCTAssertTrue(FileManager.default.fileExists(atPath: mine), "a live process's database is kept")
    }
}
