import FleetTestSupport
import XCTest
@testable import FleetHTTP

/// `Configuration.sourceAddress` (`fleet run --source-address`): every connection comes from the
/// given local address, so shard processes on one machine are distinct clients to the server.
final class HTTPEngineSourceAddressTests: XCTestCase {
    func testConnectionsComeFromTheConfiguredLoopbackAddress() throws {
        let server = try RawHTTPServer { _ in .http(200, body: Array("ok".utf8)) }
        defer { server.stop() }
        for address in ["127.0.0.3", "127.0.0.5"] {
            var config = HTTPEngine.Configuration()
            config.sourceAddress = address
            let engine = try HTTPEngine(configuration: config)
            defer { engine.shutdown() }
            guard let r = expectResponse(roundTrip(engine, HTTPRequest(method: "GET", url: server.baseURL + "/x"))) else { return }
            XCTAssertEqual(r.status, 200)
        }
        let plain = try HTTPEngine()
        defer { plain.shutdown() }
        _ = expectResponse(roundTrip(plain, HTTPRequest(method: "GET", url: server.baseURL + "/x")))
        XCTAssertEqual(server.peers, ["127.0.0.3", "127.0.0.5", "127.0.0.1"])
    }

    /// An address the machine does not have fails the request with a transport error, not silently
    /// from another address.
    func testAnAddressThatIsNotLocalFailsTheRequest() throws {
        let server = try RawHTTPServer { _ in .http(200) }
        defer { server.stop() }
        var config = HTTPEngine.Configuration()
        config.sourceAddress = "192.0.2.1"  // TEST-NET-1: never a local address
        let engine = try HTTPEngine(configuration: config)
        defer { engine.shutdown() }
        XCTAssertNotNil(expectError(roundTrip(engine, HTTPRequest(method: "GET", url: server.baseURL + "/x"))))
        XCTAssertEqual(server.acceptedConnections, 0)
    }
}
