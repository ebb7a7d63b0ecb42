import FleetCore
import XCTest

/// The one loopback rule, on the cases where the bench's three earlier checks disagreed.
final class LoopbackTests: XCTestCase {
    func testHostsInAndOutOfLoopback() {
        for host in ["127.0.0.1", "127.1.2.3", "127.255.255.255", "::1", "[::1]", "0:0:0:0:0:0:0:1", "0000::0001",
                     "localhost", "LOCALHOST", "::ffff:127.0.0.1", "[::ffff:127.9.8.7]", "::ffff:7f00:1"] {
            XCTAssertTrue(Loopback.isLoopbackHost(host), host)
        }
        for host in ["0.0.0.0", "::", "128.0.0.1", "10.0.0.1", "::ffff:10.0.0.1", "::2", "127.0.0.1.example.com",
                     "localhost.example.com", "127.0.0", "127.0.0.256", "127.0.0.1:80", "1::1::1", "example.com", "", "[]"] {
            XCTAssertFalse(Loopback.isLoopbackHost(host), host)
        }
    }

    func testAddressesMustBeLiteralsButURLsMayNameLocalhost() {
        XCTAssertTrue(Loopback.isLoopbackAddress("127.0.0.2"))
        XCTAssertTrue(Loopback.isLoopbackAddress("::1"))
        XCTAssertFalse(Loopback.isLoopbackAddress("localhost"), "a source address is an IP literal, not a name")
        XCTAssertTrue(Loopback.isLoopbackURL("http://localhost:8080/x"))
        XCTAssertTrue(Loopback.isLoopbackURL("http://[::1]:8080/healthz"))
        XCTAssertTrue(Loopback.isLoopbackURL("http://user@127.0.0.5:1/"))
        XCTAssertTrue(Loopback.isLoopbackURL("http://[::ffff:127.0.0.1]:9/"))
        XCTAssertFalse(Loopback.isLoopbackURL("http://127.0.0.1.example.com:8080/"))
        XCTAssertFalse(Loopback.isLoopbackURL("http://0.0.0.0:8080/"))
        XCTAssertFalse(Loopback.isLoopbackURL("http://evil.com/@127.0.0.1"), "the user part ends before the path")
        XCTAssertFalse(Loopback.isLoopbackURL("127.0.0.1:8080"), "no scheme, no host")
    }

    func testIPLiterals() {
        for literal in ["127.0.0.2", "10.1.2.3", "::1", "fe80::1", "2001:db8::8:800:200c:417a", "::ffff:192.0.2.1"] {
            XCTAssertTrue(Loopback.isIPLiteral(literal), literal)
        }
        for text in ["localhost", "eth0", "127.0.0", "::::", "1:2:3:4:5:6:7:8:9", "12345::1", "g::1"] {
            XCTAssertFalse(Loopback.isIPLiteral(text), text)
        }
    }
}
