import XCTest
@testable import FleetStack

/// The named bugs have one spelling: parse accepts exactly the README's names and refuses others
/// with the list of known ones.
final class StackBugTests: XCTestCase {
    func testKnownNamesParseAndUnknownOnesAreRefusedWithTheList() throws {
        XCTAssertEqual(try StackBug.parseList("settle-race,streak-utc"), [.settleRace, .streakUTC])
        XCTAssertEqual(StackBug.allCases.map(\.rawValue),
                       ["settle-race", "dup-transaction", "streak-utc", "lost-submit", "stale-resume"])
        XCTAssertThrowsError(try StackBug.parseList("settle-race,nosuch")) {
            XCTAssertEqual("\($0)", "unknown bug 'nosuch' (known: settle-race, dup-transaction, streak-utc, lost-submit, stale-resume)")
        }
        XCTAssertThrowsError(try StackBug.parse("Settle-Race"), "names are case-sensitive")
    }

    func testSettingsFileNamesTheFieldOfAnUnknownBug() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("stackbug-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("s.json").path
        try Data(#"{"bugs": ["lost-submit", "nosuch"]}"#.utf8).write(to: URL(fileURLWithPath: path))
        XCTAssertThrowsError(try StackSettings.load(path: path)) {
            XCTAssertEqual("\($0)", "\(path): 'bugs': unknown bug 'nosuch' (known: \(StackBug.knownList))")
        }
        try Data(#"{"bugs": ["lost-submit"]}"#.utf8).write(to: URL(fileURLWithPath: path))
        XCTAssertEqual(try StackSettings.load(path: path).bugs, [.lostSubmit])
    }

    func testEncodedSettingsKeepTheNames() throws {
        var s = StackSettings()
        s.bugs = [.dupTransaction]
        let text = String(decoding: try JSONEncoder().encode(s), as: UTF8.self)
        XCTAssertTrue(text.contains(#""bugs":["dup-transaction"]"#), text)
        XCTAssertEqual(try JSONDecoder().decode(StackSettings.self, from: Data(text.utf8)).bugs, [.dupTransaction])
    }
}
