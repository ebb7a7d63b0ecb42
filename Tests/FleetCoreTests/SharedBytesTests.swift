import XCTest
@testable import FleetCore

final class SharedBytesTests: XCTestCase {
    /// The copy takes one memcpy from contiguous sources and the element loop from others: both
    /// must give the same bytes, from the source's own start (a slice does not start at 0).
    func testCopiesEveryKindOfSourceByteForByte() {
        let all = (0..<300).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) }
        let slice = all[17..<211]
        let sources: [(String, SharedBytes, [UInt8])] = [
            ("array", SharedBytes(all), all),
            ("slice", SharedBytes(slice), Array(slice)),
            ("utf8 view", SharedBytes("héllo, wörld".utf8), Array("héllo, wörld".utf8)),
            ("lazy map (not contiguous)", SharedBytes(all.lazy.map { $0 ^ 0x5a }), all.map { $0 ^ 0x5a }),
            ("one byte", SharedBytes([UInt8(0xff)]), [0xff]),
        ]
        for (name, shared, expected) in sources {
            XCTAssertEqual(shared.count, expected.count, name)
            XCTAssertEqual(shared.copyBytes(), expected, name)
        }
    }

    func testEmptySourceHasNoStorage() {
        let empty = SharedBytes([UInt8]())
        XCTAssertEqual(empty.count, 0)
        XCTAssertNil(empty.base)
        XCTAssertEqual(empty.copyBytes(), [])
    }
}
