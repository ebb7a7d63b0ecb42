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

    func testSeededRandomIsDeterministicPerStream() {
        var a = SeededRandom(seed: 42, stream: 7), b = SeededRandom(seed: 42, stream: 7), c = SeededRandom(seed: 42, stream: 8)
        let xa = (0..<5).map { _ in a.next() }, xb = (0..<5).map { _ in b.next() }, xc = (0..<5).map { _ in c.next() }
        XCTAssertEqual(xa, xb)
        XCTAssertNotEqual(xa, xc)
        var r = SeededRandom(seed: 1)
        let mean = (0..<100_000).map { _ in r.exponential(mean: 2.0) }.reduce(0, +) / 100_000
        XCTAssertEqual(mean, 2.0, accuracy: 0.05)
    }
}

final class RFC3339Tests: XCTestCase {
    func testFormatsAndParsesKnownInstants() {
        XCTAssertEqual(RFC3339.format(millis: 0), "1970-01-01T00:00:00.000Z")
        XCTAssertEqual(RFC3339.format(millis: 1_795_964_928_123), "2026-11-29T15:08:48.123Z")
        XCTAssertEqual(RFC3339.parseMillis("2026-11-29T15:08:48.123Z"), 1_795_964_928_123)
        XCTAssertEqual(RFC3339.parseMillis("2026-11-29T16:08:48.1+01:00"), 1_795_964_928_100)
        XCTAssertEqual(RFC3339.parseMillis("1969-12-31T23:59:59.999Z"), -1)
        XCTAssertNil(RFC3339.parseMillis("2026-13-01T00:00:00Z"))
        XCTAssertNil(RFC3339.parseMillis("yesterday"))
        // A server may send microseconds or nanoseconds; they are cut to milliseconds, never a crash.
        XCTAssertEqual(RFC3339.parseMillis("2026-11-29T15:08:48.123456Z"), 1_795_964_928_123)
        XCTAssertEqual(RFC3339.parseMillis("2026-11-29T15:08:48.123456789+00:00"), 1_795_964_928_123)
        XCTAssertNil(RFC3339.parseMillis("2026-11-29T15:08:48.Z"))
        XCTAssertNil(RFC3339.parseMillis("2026-11-29T15:08:48.5+01"))
        for ms in stride(from: Int64(-5_000_000_000_000), to: 5_000_000_000_000, by: 123_456_789_013) {
            XCTAssertEqual(RFC3339.parseMillis(RFC3339.format(millis: ms)), ms)
        }
    }
}
