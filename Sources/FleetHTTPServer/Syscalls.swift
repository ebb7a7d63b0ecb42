#if canImport(Glibc)
import Glibc
#endif
import CSysShim

/// Every system call the server makes, and nowhere else.
///
/// Each wrapper retries `EINTR` (a signal landing mid-call is not a failure) and turns `-1` into
/// `ServerError.system(call:errno:)`, naming the call. "Try again later" (`EAGAIN`/`EWOULDBLOCK`)
/// on a non-blocking descriptor is not an error either: it comes back as a value (`IOResult`,
/// or nil) for the caller to handle. The Linux-only calls go through the `CSysShim` C target.
enum Sys {
    /// What a read or write on a non-blocking socket did.
    enum IOResult: Equatable {
        /// This many bytes moved (0 from `recv` is the peer's end-of-file).
        case processed(Int)
        /// Nothing to read, or no room to write, right now.
        case wouldBlock
    }

    // MARK: Flags and epoll event bits (values from the kernel headers, via the shim).

    static let epollIn = fleet_EPOLLIN
    static let epollOut = fleet_EPOLLOUT
    static let epollErr = fleet_EPOLLERR
    static let epollHup = fleet_EPOLLHUP
    static let epollRdHup = fleet_EPOLLRDHUP
    static let epollET = fleet_EPOLLET
    static let socketFlags = fleet_SOCK_NONBLOCK | fleet_SOCK_CLOEXEC

    typealias EpollEvent = fleet_epoll_event

    // MARK: The retry rule.

    /// Runs `body` until it does not fail with `EINTR`. On a call that can be told "later",
    /// `EAGAIN`/`EWOULDBLOCK` return nil (no throw on the hot path); any other `-1` throws.
    @inline(__always)
    private static func attempt<T: BinaryInteger>(_ call: String, laterIsValue: Bool,
                                                  _ body: () -> T) throws(ServerError) -> T? {
        while true {
            let result = body()
            if result != -1 { return result }
            let code = errno
            if code == EINTR { continue }
            if laterIsValue && (code == EAGAIN || code == EWOULDBLOCK) { return nil }
            throw .system(call: call, errno: code)
        }
    }

    @inline(__always)
    private static func retrying<T: BinaryInteger>(_ call: String, _ body: () -> T) throws(ServerError) -> T {
        try attempt(call, laterIsValue: false, body)!  // nil only when "later" is a value
    }

    @inline(__always)
    private static func retryingNonBlocking<T: BinaryInteger>(_ call: String, _ body: () -> T) throws(ServerError) -> T? {
        try attempt(call, laterIsValue: true, body)
    }

    // MARK: Descriptors.

    /// Closes `fd`. Not retried: on Linux the descriptor is released even when close reports
    /// `EINTR`, and closing it again could close a descriptor another thread just opened.
    static func close(_ fd: Int32) throws(ServerError) {
        if Glibc.close(fd) == -1 {
            let code = errno
            if code == EINTR { return }
            throw .system(call: "close", errno: code)
        }
    }

    // MARK: Sockets.

    static func socket(family: Int32, type: Int32) throws(ServerError) -> Int32 {
        try retrying("socket") { Glibc.socket(family, type | socketFlags, 0) }
    }

    static func setOption(_ fd: Int32, level: Int32, name: Int32, _ value: Int32, call: String) throws(ServerError) {
        var v = value
        _ = try retrying(call) { Glibc.setsockopt(fd, level, name, &v, socklen_t(MemoryLayout<Int32>.size)) }
    }

    static func bind(_ fd: Int32, _ address: UnsafePointer<sockaddr>, length: socklen_t) throws(ServerError) {
        _ = try retrying("bind") { Glibc.bind(fd, address, length) }
    }

    static func listen(_ fd: Int32, backlog: Int32) throws(ServerError) {
        _ = try retrying("listen") { Glibc.listen(fd, backlog) }
    }

    static func localAddress(_ fd: Int32) throws(ServerError) -> sockaddr_storage {
        var address = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = try withUnsafeMutablePointer(to: &address) { (p) throws(ServerError) -> Int32 in
            try p.withMemoryRebound(to: sockaddr.self, capacity: 1) { (a) throws(ServerError) -> Int32 in
                try retrying("getsockname") { getsockname(fd, a, &length) }
            }
        }
        return address
    }

    /// Accepts one pending connection as a non-blocking, close-on-exec socket into `address`;
    /// nil when none is pending. A connection reset before it was accepted (`ECONNABORTED`) is
    /// skipped, like `EINTR`, and the next one taken.
    static func accept(_ listener: Int32, address: UnsafeMutablePointer<sockaddr_storage>) throws(ServerError) -> Int32? {
        while true {
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            do throws(ServerError) {
                return try retryingNonBlocking("accept4") {
                    address.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        fleet_accept4(listener, $0, &length, socketFlags)
                    }
                }
            } catch .system(_, let code) where code == ECONNABORTED {
                continue
            }
        }
    }

    static func recv(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) throws(ServerError) -> IOResult {
        guard let n = try retryingNonBlocking("recv", { Glibc.recv(fd, buffer.baseAddress, buffer.count, 0) }) else {
            return .wouldBlock
        }
        return .processed(n)
    }

    /// Sends without raising `SIGPIPE` on a connection the peer has closed (that is `EPIPE`).
    static func send(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) throws(ServerError) -> IOResult {
        guard let n = try retryingNonBlocking("send", {
            Glibc.send(fd, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL))
        }) else {
            return .wouldBlock
        }
        return .processed(n)
    }

    /// Half-closes: no more output from us, input still readable.
    static func shutdownOutput(_ fd: Int32) throws(ServerError) {
        _ = try retrying("shutdown") { Glibc.shutdown(fd, Int32(SHUT_WR)) }
    }

    // MARK: epoll.

    static func epollCreate() throws(ServerError) -> Int32 {
        try retrying("epoll_create1") { fleet_epoll_create1(fleet_EPOLL_CLOEXEC) }
    }

    static func epollAdd(_ epfd: Int32, fd: Int32, events: UInt32, token: UInt64) throws(ServerError) {
        _ = try retrying("epoll_ctl(ADD)") { fleet_epoll_add(epfd, fd, events, token) }
    }

    static func epollRemove(_ epfd: Int32, fd: Int32) throws(ServerError) {
        _ = try retrying("epoll_ctl(DEL)") { fleet_epoll_del(epfd, fd) }
    }

    /// Waits up to `timeoutMillis` for events into `buffer`; returns how many arrived.
    ///
    /// The one call not retried on `EINTR`: an interrupted wait returns 0 events, so the caller's
    /// loop looks at its timers and waits again (a retry with the whole timeout could hold a
    /// timeout sweep back by a full interval).
    static func epollWait(_ epfd: Int32, into buffer: UnsafeMutableBufferPointer<EpollEvent>,
                          timeoutMillis: Int32) throws(ServerError) -> Int {
        let n = fleet_epoll_wait(epfd, buffer.baseAddress, Int32(buffer.count), timeoutMillis)
        if n >= 0 { return Int(n) }
        let code = errno
        if code == EINTR { return 0 }
        throw .system(call: "epoll_wait", errno: code)
    }

    // MARK: eventfd.

    static func makeEventFD() throws(ServerError) -> Int32 {
        try retrying("eventfd") { fleet_eventfd(0, fleet_EFD_CLOEXEC | fleet_EFD_NONBLOCK) }
    }

    /// Adds 1 to the eventfd's counter; false when the counter is full (the reader is woken anyway).
    @discardableResult
    static func eventFDSignal(_ fd: Int32) throws(ServerError) -> Bool {
        var one: UInt64 = 1
        return try retryingNonBlocking("write(eventfd)") { Glibc.write(fd, &one, 8) } != nil
    }

    /// Reads and resets the eventfd's counter; nil when it was already zero.
    @discardableResult
    static func eventFDDrain(_ fd: Int32) throws(ServerError) -> UInt64? {
        var counter: UInt64 = 0
        guard try retryingNonBlocking("read(eventfd)", { Glibc.read(fd, &counter, 8) }) != nil else { return nil }
        return counter
    }
}
