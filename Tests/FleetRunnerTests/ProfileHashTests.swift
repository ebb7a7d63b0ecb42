import FleetRunner
import XCTest

/// The profile hash says whether two runs sent the same load: the embedded stack's settings
/// (what an A/B comparison changes on purpose) and the words are left out; seed and duration count.
final class ProfileHashTests: XCTestCase {
    private func load(_ relative: String) throws -> Profile {
        try Profile.load(path: EndToEndTests.packageRoot.appendingPathComponent(relative).path)
    }

    func testStackSettingsDoNotChangeTheHashButTheLoadDoes() throws {
        let a = try load("bench/regression/a.json"), b = try load("bench/regression/b.json")
        XCTAssertNotEqual(a.stack, b.stack, "the B profile changes the stack")
        XCTAssertEqual(a.hash, b.hash)
        XCTAssertEqual(a.hash.count, 64)
        var reseeded = a
        reseeded.seed += 1
        XCTAssertNotEqual(reseeded.hash, a.hash)
        var shorter = a
        shorter.durationS = 10
        XCTAssertNotEqual(shorter.hash, a.hash)
        XCTAssertNotEqual(try load("profiles/nightly.json").hash, a.hash)
        XCTAssertEqual(a.minEffect, 0.05)
        XCTAssertEqual(a.minAbsoluteMs, 50)
    }

    func testMinEffectIsReadAndChecked() throws {
        let dir = try EndToEndTests.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let base = try String(contentsOf: EndToEndTests.packageRoot.appendingPathComponent("bench/regression/a.json"), encoding: .utf8)
        let good = dir.appendingPathComponent("good.json"), bad = dir.appendingPathComponent("bad.json")
        let setting = "\"regression\": { \"min_effect\": 0.05, \"min_abs_ms\": 50 }"
        XCTAssertTrue(base.contains(setting))
        try base.replacingOccurrences(of: setting, with: "\"regression\": {\"min_effect\": 0.1}")
            .write(to: good, atomically: true, encoding: .utf8)
        try base.replacingOccurrences(of: setting, with: "\"regression\": {\"min_effect\": 2, \"x\": 1}")
            .write(to: bad, atomically: true, encoding: .utf8)
        let p = try Profile.load(path: good.path)
        XCTAssertEqual(p.minEffect, 0.1)
        XCTAssertEqual(p.minAbsoluteMs, 10, "the default floor")
        XCTAssertEqual(p.hash, try load("bench/regression/a.json").hash, "the comparison's own setting is not the load")
        XCTAssertThrowsError(try Profile.load(path: bad.path)) { e in
            let text = "\(e)"
            XCTAssertTrue(text.contains("regression.min_effect: must be <= 1"), text)
            XCTAssertTrue(text.contains("regression.x: unknown field"), text)
        }
    }
}
