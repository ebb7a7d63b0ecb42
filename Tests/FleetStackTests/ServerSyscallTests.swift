#if canImport(Glibc)
import Glibc
#endif
@testable import FleetHTTPServer
import XCTest

/// The server's one syscall boundary (`Sys`): "try again later" is a value, failures are typed
/// errors naming the call and errno, and epoll events cross the C shim intact.
final class ServerSyscallTests: XCTestCase {
    private func socketPair() throws -> (Int32, Int32) {
        var fds: [Int32] = [-1, -1]
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        XCTAssertEqual(socketpair(AF_UNIX, type, 0, &fds), 0, "socketpair: errno \(errno)")
        return (fds[0], fds[1])
    }

    func testWouldBlockAndEndOfFileAreValuesNotErrors() throws {
        let (a, b) = try socketPair()
        defer { try? Sys.close(a) }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 16, alignment: 1)
        defer { buffer.deallocate() }
        XCTAssertEqual(try Sys.recv(a, into: buffer), .wouldBlock)
        let sent = try Array("hi!".utf8).withUnsafeBytes { try Sys.send(b, $0) }
        XCTAssertEqual(sent, .processed(3))
        XCTAssertEqual(try Sys.recv(a, into: buffer), .processed(3))
        XCTAssertEqual(Array(buffer[0..<3]), Array("hi!".utf8))
        try Sys.close(b)
        XCTAssertEqual(try Sys.recv(a, into: buffer), .processed(0), "the peer's close reads as end-of-file")
    }

    func testFailuresNameTheCallAndErrno() {
        XCTAssertThrowsError(try Sys.close(-1)) { error in
            XCTAssertEqual(error as? ServerError, .system(call: "close", errno: EBADF))
        }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 16, alignment: 1)
        defer { buffer.deallocate() }
        XCTAssertThrowsError(try Sys.recv(-1, into: buffer)) { error in
            XCTAssertEqual(error as? ServerError, .system(call: "recv", errno: EBADF))
        }
        XCTAssertThrowsError(try Sys.shutdownOutput(-1)) { error in
            XCTAssertEqual(error as? ServerError, .system(call: "shutdown", errno: EBADF))
        }
    }

    func testAcceptWithNothingPendingIsNil() throws {
        let (fd, port) = try ListenSocket.open(host: "127.0.0.1", port: 0)
        defer { try? Sys.close(fd) }
        XCTAssertGreaterThan(port, 0)
        var address = sockaddr_storage()
        XCTAssertNil(try Sys.accept(fd, address: &address))
    }

    func testEpollReportsTheEventFDWithItsToken() throws {
        let epfd = try Sys.epollCreate()
        defer { try? Sys.close(epfd) }
        let wake = try Sys.makeEventFD()
        defer { try? Sys.close(wake) }
        XCTAssertNil(try Sys.eventFDDrain(wake), "a fresh eventfd has nothing to read")
        let token: UInt64 = 0x1234_5678_9abc_def0  // all 64 bits must survive the shim's struct
        try Sys.epollAdd(epfd, fd: wake, events: Sys.epollIn, token: token)
        let events = UnsafeMutableBufferPointer<Sys.EpollEvent>.allocate(capacity: 4)
        defer { events.deallocate() }
        XCTAssertEqual(try Sys.epollWait(epfd, into: events, timeoutMillis: 0), 0)
        XCTAssertTrue(try Sys.eventFDSignal(wake))
        XCTAssertTrue(try Sys.eventFDSignal(wake))
        XCTAssertEqual(try Sys.epollWait(epfd, into: events, timeoutMillis: 1000), 1)
        XCTAssertEqual(events[0].token, token)
        XCTAssertNotEqual(events[0].events & Sys.epollIn, 0)
        XCTAssertEqual(try Sys.eventFDDrain(wake), 2)
        try Sys.epollRemove(epfd, fd: wake)
        XCTAssertThrowsError(try Sys.epollRemove(epfd, fd: wake)) { error in
            XCTAssertEqual(error as? ServerError, .system(call: "epoll_ctl(DEL)", errno: ENOENT))
        }
    }
}
