import FleetRunner
import FleetTestSupport
import Foundation
import XCTest

/// The child stack `fleet run` starts: `beginStop()` lets it shut down while the bench goes on
/// (writing its report), and `stop()` afterwards still returns.
final class ChildStackTests: XCTestCase {
    /// Whether something accepts TCP connections at the URL's loopback port.
    static func listening(_ url: String) -> Bool {
        guard let port = URLComponents(string: url)?.port else { return false }
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }

    func testBeginStopEndsTheChildStackWhileTheBenchGoesOnAndStopStillReturns() throws {
        let stack = try ChildProcessStackLauncher(executable: EndToEndTests.fleetBinary).start(settings: nil)
        XCTAssertTrue(Self.listening(stack.baseURL), "the stack at \(stack.baseURL) should accept connections")
        stack.beginStop()
        // No stop() yet: the child goes away on its own.
        XCTAssertTrue(eventually(within: 10) { !Self.listening(stack.baseURL) }, "still listening after beginStop")
        stack.stop()
        XCTAssertFalse(Self.listening(stack.baseURL))
    }
}
