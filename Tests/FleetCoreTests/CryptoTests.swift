import XCTest
@testable import FleetCore

final class CryptoTests: XCTestCase {
    // Vectors from FIPS 180-4 examples and RFC 4231.
    func testSHA256KnownVectors() {
        XCTAssertEqual(SHA256.hex(Array("".utf8)), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        XCTAssertEqual(SHA256.hex(Array("abc".utf8)), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        XCTAssertEqual(SHA256.hex(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)),
                       "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        XCTAssertEqual(SHA256.hex([UInt8](repeating: 0x61, count: 1_000_000)),
                       "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    func testSHA256StreamingEqualsOneShot() {
        let data = (0..<1000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        var s = SHA256()
        s.update(data[0..<7]); s.update(data[7..<64]); s.update(data[64..<65]); s.update(data[65...])
        XCTAssertEqual(s.finalize(), SHA256.digest(data))
    }

    func testHMACRFC4231Case2() {
        let mac = HMACSHA256.mac(key: "Jefe", message: "what do ya want for nothing?")
        XCTAssertEqual(Hex.encode(mac), "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
    }
}
