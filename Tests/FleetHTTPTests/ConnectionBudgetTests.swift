import FleetHTTP
import Foundation
import XCTest

/// The automatic connection cap of a run: below the open-file limit and the ephemeral ports.
final class ConnectionBudgetTests: XCTestCase {
    func testTheCapIsTheSmallerOfTheOpenFileLimitLessTheReserveAndThreeQuartersOfThePorts() {
        let reserve = ConnectionBudget.reservedDescriptors
        XCTAssertEqual(ConnectionBudget.automatic(openFiles: 20_000, ports: 28_232), 20_000 - reserve)
        XCTAssertEqual(ConnectionBudget.automatic(openFiles: 1_048_576, ports: 28_232), 21_174)
        XCTAssertEqual(ConnectionBudget.automatic(openFiles: 1_024, ports: nil), 1_024 - reserve)
    }

    func testAnUnlimitedOrTinyOpenFileLimitStillGivesACapLibcurlCanHold() {
        XCTAssertEqual(ConnectionBudget.automatic(openFiles: Int.max, ports: nil), 1_000_000)
        XCTAssertEqual(ConnectionBudget.automatic(openFiles: 100, ports: nil), 1)
    }

    func testThePortRangeFileIsReadAsInclusiveBoundsAndNonsenseIsNil() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fleet-ports-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        func ports(_ text: String) throws -> Int? {
            let file = dir.appendingPathComponent("range").path
            try text.write(toFile: file, atomically: true, encoding: .utf8)
            return ConnectionBudget.ephemeralPorts(rangeFile: file)
        }
        XCTAssertEqual(try ports("32768\t60999\n"), 28_232)
        XCTAssertEqual(try ports("1024 1024"), 1)
        XCTAssertNil(try ports("60999\t32768\n"))
        XCTAssertNil(try ports("32768"))
        XCTAssertNil(try ports("low high"))
        XCTAssertNil(ConnectionBudget.ephemeralPorts(rangeFile: dir.appendingPathComponent("missing").path))
    }
}
