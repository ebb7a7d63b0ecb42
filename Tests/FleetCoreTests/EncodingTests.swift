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

    /// A word's little-endian bytes in hex are its byte-swapped digits (how idempotency keys are spelled).
    func testAWordsLittleEndianBytesAreItsByteSwappedDigits() {
        for v: UInt64 in [0, 1, 0x0123_4567_89ab_cdef, .max, 0x8000_0000_0000_00ff] {
            let bytes = (0..<8).map { UInt8(truncatingIfNeeded: v >> ($0 * 8)) }
            XCTAssertEqual(Hex.encode(v.byteSwapped, digits: 16), Hex.encode(bytes))
        }
        XCTAssertEqual(Hex.encode([0xde, 0xad, 0x00, 0x0f]), "dead000f")
        XCTAssertEqual(Hex.encode(Array("ab".utf8)[...]), "6162", "a slice, another specialisation")
    }
}
