import CCurlShim
import FleetCore
import FleetTestSupport
import Foundation
import XCTest
@testable import FleetHTTP

/// The I/O loop's epoll bookkeeping (`EpollInterest`, issue 18): against a real epoll set and
/// real sockets, what is watched reports, what curl dropped never reaches curl, a parked socket
/// costs no system call when watched again, and a reused descriptor number is registered anew.
final class EpollInterestTests: XCTestCase {
    private var epollFD: Int32 = -1
    private var open: [Int32] = []

    override func setUp() {
        epollFD = epoll_create1(Int32(EPOLL_CLOEXEC))
        XCTAssertGreaterThanOrEqual(epollFD, 0)
    }

    override func tearDown() {
        for fd in open { close(fd) }
        close(epollFD)
    }

    /// A connected pair of sockets; the first is "curl's", the second the peer that writes.
    private func pair() -> (Int32, Int32) {
        var fds: [Int32] = [-1, -1]
        XCTAssertEqual(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds), 0)
        open += fds
        return (fds[0], fds[1])
    }

    /// The tokens epoll reports now (no waiting).
    private func ready() -> [UInt64] {
        var events = [epoll_event](repeating: epoll_event(), count: 16)
        let n = epoll_wait(epollFD, &events, 16, 0)
        return (0..<Int(max(n, 0))).map { events[$0].data.u64 }
    }

    /// An interest (lazy unless said) in which `socket` is a connection socket the engine opened.
    private func interestWithConnection(_ socket: Int32, lazy: Bool = true) -> EpollInterest {
        var interest = EpollInterest(epollFD: epollFD, lazy: lazy)
        interest.opened(socket)
        return interest
    }

    private func poke(_ peer: Int32) {
        var byte: UInt8 = 1
        XCTAssertEqual(write(peer, &byte, 1), 1)
    }

    func testAParkedSocketCostsNothingToWatchAgainAndLeavesOnItsFirstUnwantedEvent() {
        let (mine, peer) = pair()
        var interest = interestWithConnection(mine)
        interest.watchNow(mine, events: EPOLLIN.rawValue, token: 7)
        XCTAssertEqual(interest.controlCalls, 1)
        interest.unwatch(mine)  // a transfer ended; the connection is parked
        interest.watch(mine, events: EPOLLIN.rawValue, token: 7)  // the next one reuses it
        interest.flush()
        XCTAssertEqual(interest.controlCalls, 1, "same socket, same events: no epoll_ctl")
        poke(peer)
        XCTAssertEqual(ready(), [7])
        XCTAssertTrue(interest.wants(mine), "watched: the event goes to curl")

        interest.unwatch(mine)
        XCTAssertEqual(ready(), [7], "parked, still in the set (the byte is unread)")
        XCTAssertFalse(interest.wants(mine), "an event curl did not ask for goes to no one")
        XCTAssertEqual(interest.controlCalls, 2, "and removes the socket from the set")
        XCTAssertEqual(ready(), [], "removed: the unread byte reports no more")
        interest.watchNow(mine, events: EPOLLIN.rawValue, token: 7)
        XCTAssertEqual(interest.controlCalls, 3, "watched again after removal: added anew")
        XCTAssertEqual(ready(), [7])
    }

    func testOtherEventsOrAnotherShardUpdateTheRegistration() {
        var interest = EpollInterest(epollFD: epollFD, lazy: true)
        let (mine, _) = pair()
        interest.watchNow(mine, events: EPOLLIN.rawValue, token: 1)
        XCTAssertEqual(ready(), [], "nothing to read")
        interest.watchNow(mine, events: EPOLLOUT.rawValue, token: 1)
        XCTAssertEqual(ready(), [1], "now watched for writing, which it can")
        interest.watchNow(mine, events: EPOLLOUT.rawValue, token: 2 << 32 | 1)
        XCTAssertEqual(ready(), [2 << 32 | 1], "reported with the new shard's token")
        XCTAssertEqual(interest.controlCalls, 3)
    }

    func testEagerModeRemovesAtOnce() {
        let (mine, peer) = pair()
        var interest = interestWithConnection(mine, lazy: false)
        interest.watchNow(mine, events: EPOLLIN.rawValue, token: 3)
        interest.unwatch(mine)
        XCTAssertEqual(interest.controlCalls, 2)
        poke(peer)
        XCTAssertEqual(ready(), [], "removed from the set at once")
        interest.watchNow(mine, events: EPOLLIN.rawValue, token: 3)
        XCTAssertEqual(ready(), [3])
    }

    /// Interest is applied when the loop is about to wait: a socket curl wants written and then,
    /// in the same turn, only read again (an upload driven to its end) costs no epoll_ctl.
    func testChangesThatCancelOutWithinATurnCostNothing() {
        let (mine, _) = pair()
        var interest = interestWithConnection(mine)
        interest.watch(mine, events: EPOLLIN.rawValue, token: 5)
        XCTAssertEqual(interest.controlCalls, 0, "nothing applied before the flush")
        interest.flush()
        XCTAssertEqual(interest.controlCalls, 1)
        interest.watch(mine, events: EPOLLIN.rawValue | EPOLLOUT.rawValue, token: 5)
        interest.watchNow(mine, events: EPOLLIN.rawValue, token: 5)
        XCTAssertEqual(interest.controlCalls, 1, "IN, IN|OUT and IN again in one turn: no epoll_ctl")
        XCTAssertEqual(ready(), [], "still watched for reading only, though it is writable")
        interest.watch(mine, events: EPOLLIN.rawValue | EPOLLOUT.rawValue, token: 5)
        XCTAssertEqual(ready(), [], "not applied before the flush")
        interest.flush()
        XCTAssertEqual(interest.controlCalls, 2)
        XCTAssertEqual(ready(), [5], "a change that holds at the flush is applied")
    }

    /// `watch` names the sockets worth driving as writable (`IOLoop.driveWrites`): one curl was
    /// reading that it now wants written (an upload's body), not one it wants written to learn
    /// that it connected.
    func testWatchNamesASocketThatWasBeingReadAndNowWantsWriting() {
        let (mine, _) = pair()
        var interest = interestWithConnection(mine)
        XCTAssertFalse(interest.watch(mine, events: EPOLLOUT.rawValue, token: 1), "connecting")
        XCTAssertFalse(interest.watch(mine, events: EPOLLIN.rawValue | EPOLLOUT.rawValue, token: 1), "still connecting")
        XCTAssertFalse(interest.watch(mine, events: EPOLLIN.rawValue, token: 1))
        XCTAssertFalse(interest.wantsWriting(mine))
        XCTAssertTrue(interest.watch(mine, events: EPOLLIN.rawValue | EPOLLOUT.rawValue, token: 1))
        XCTAssertTrue(interest.wantsWriting(mine))
        XCTAssertFalse(interest.watch(mine, events: EPOLLIN.rawValue | EPOLLOUT.rawValue, token: 1), "already writing")
        interest.unwatch(mine)
        XCTAssertFalse(interest.wantsWriting(mine), "parked: curl wants nothing of it")
        interest.watch(mine, events: EPOLLIN.rawValue, token: 1)  // the connection reused ...
        XCTAssertTrue(interest.watch(mine, events: EPOLLIN.rawValue | EPOLLOUT.rawValue, token: 1), "... for an upload")
    }

    /// A socket curl opened itself (the threaded resolver's pair) closes without the engine
    /// hearing of it, right after its REMOVE: it is never parked.
    func testASocketTheEngineDidNotOpenLeavesTheSetAtOnce() {
        var interest = EpollInterest(epollFD: epollFD, lazy: true)
        let (mine, peer) = pair()
        interest.watchNow(mine, events: EPOLLIN.rawValue, token: 4)
        interest.unwatch(mine)
        XCTAssertEqual(interest.controlCalls, 2, "added, then removed at once")
        XCTAssertEqual(interest.registeredCount, 0)
        XCTAssertFalse(interest.watch(mine, events: EPOLLOUT.rawValue, token: 4),
                       "forgotten: its number may come back as a socket that connects")
        interest.unwatch(mine)
        poke(peer)
        XCTAssertEqual(ready(), [])
    }

    /// The hazard of keeping registrations: a closed socket leaves the epoll set, and a new socket
    /// that gets the same number must not pass for registered, even one the engine did not open.
    func testAClosedSocketsNumberReusedIsRegisteredAnew() {
        let (mine, peer) = pair()
        var interest = interestWithConnection(mine)
        interest.watchNow(mine, events: EPOLLIN.rawValue, token: UInt64(mine))
        interest.unwatch(mine)
        interest.closing(mine)
        close(mine)
        close(peer)
        open.removeAll { $0 == mine || $0 == peer }
        let (again, newPeer) = pair()
        XCTAssertEqual(again, mine, "the kernel hands out the lowest free number")
        // Not `opened`: the number comes back as one of curl's own sockets (a resolver's pair).
        interest.watchNow(again, events: EPOLLIN.rawValue, token: UInt64(again))
        XCTAssertEqual(interest.controlCalls, 2, "a new socket behind an old number is added")
        poke(newPeer)
        XCTAssertEqual(ready(), [UInt64(again)], "and its events report")
    }

    /// The engine opens curl's connection sockets itself: close-on-exec, so a child process the
    /// bench starts (the embedded stack, a shard) holds none of its connections open.
    func testConnectionSocketsAreCloseOnExec() throws {
        let server = try RawHTTPServer { _ in .http(200, body: Array("ok".utf8)) }
        defer { server.stop() }
        let engine = try HTTPEngine()
        defer { engine.shutdown() }
        XCTAssertNotNil(expectResponse(roundTrip(engine, HTTPRequest(method: "GET", url: server.baseURL + "/"))))
        // The client end of the kept-alive connection: the socket whose remote port is the server's.
        // Read to the end: Foundation's String(contentsOfFile:) stops at 4 KiB of a /proc file.
        let tcp = String(decoding: FileBytes.read("/proc/net/tcp") ?? [], as: UTF8.self)
        let port = String(format: "%04X", server.port)
        let inodes = Set(tcp.split(separator: "\n").dropFirst().compactMap { line -> String? in
            let f = line.split(separator: " ")
            return f.count > 9 && f[2].hasSuffix(":" + port) ? String(f[9]) : nil
        })
        XCTAssertFalse(inodes.isEmpty, "no client socket to the server in /proc/net/tcp")
        var checked = 0
        for name in (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? [] {
            guard let fd = Int32(name),
                  let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(name)"),
                  target.hasPrefix("socket:["), inodes.contains(String(target.dropFirst(8).dropLast())) else { continue }
            XCTAssertNotEqual(fcntl(fd, F_GETFD) & FD_CLOEXEC, 0, "connection socket \(fd) is inherited by children")
            checked += 1
        }
        XCTAssertEqual(checked, 1, "one kept-alive connection")
    }

    /// Through the engine: a server that answers as if keeping the connection and then closes it
    /// leaves a parked socket that reports the close to no one; every next request still gets its
    /// answer, on a new connection. (Debug builds also check, when an engine stops, that no socket
    /// curl closed is still taken for registered: `IOLoop.run`.)
    func testConnectionsClosedWhileParkedDoNotLoseRequests() throws {
        let answer = Array("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok".utf8)
        let server = try RawHTTPServer { _ in .rawThenClose(answer) }
        defer { server.stop() }
        let engine = try HTTPEngine()
        defer { engine.shutdown() }
        for i in 0..<20 {
            let r = expectResponse(roundTrip(engine, HTTPRequest(method: "GET", url: server.baseURL + "/\(i)")))
            XCTAssertEqual(r.map { String(decoding: $0.body, as: UTF8.self) }, "ok")
        }
        XCTAssertEqual(server.acceptedConnections, 20, "each request after a close on a connection of its own")
    }
}

private extension EpollInterest {
    /// curl's interest, applied as at the end of a loop turn (`flush`).
    mutating func watchNow(_ socket: Int32, events: UInt32, token: UInt64) {
        watch(socket, events: events, token: token)
        flush()
    }
}
