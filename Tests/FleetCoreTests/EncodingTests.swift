import XCTest
@testable import FleetCore

/// Base64url (JWS segments) and hex, both ways.
final class EncodingTests: XCTestCase {
    func testBase64URLRoundTripAndAlphabet() {
        for n in 0..<40 {
            let bytes = (0..<n).map { UInt8(truncatingIfNeeded: $0 &* 97 &+ 250) }
            XCTAssertEqual(Base64URL.decode(Base64URL.encode(bytes)), bytes)
        }
        XCTAssertEqual(Base64URL.encode([0xfb, 0xff]), "-_8")
        XCTAssertNil(Base64URL.decode("a+b"))
        XCTAssertEqual(Hex.decode("00ff10"), [0, 255, 16])
        XCTAssertNil(Hex.decode("0g"))
    }

    func testHexOfAnIntegerIsItsTopDigits() {
        XCTAssertEqual(Hex.encode(0x0123_4567_89ab_cdef, digits: 16), "0123456789abcdef")
        XCTAssertEqual(Hex.encode(0x0123_4567_89ab_cdef, digits: 12), "0123456789ab")
        XCTAssertEqual(Hex.encode(0xf0, digits: 16), "00000000000000f0")
        XCTAssertEqual(Hex.encode(.max, digits: 0), "")
    }
}
