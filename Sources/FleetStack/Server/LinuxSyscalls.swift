#if canImport(Glibc)
import Glibc
#endif

/// The Linux-only calls the server needs that Swift's `Glibc` module does not import.
///
/// `sys/epoll.h`, `sys/eventfd.h` and `accept4` are not part of the Glibc module map, and adding
/// a C shim target would mean editing Package.swift; so they are resolved once from the already
/// loaded libc with `dlsym`. Everything here is internal to FleetStack's server: callers get
/// Swift values and typed `ServerError`s, never raw return codes.
enum LinuxSyscalls {
    private typealias EpollCreate1 = @convention(c) (Int32) -> Int32
    private typealias EpollCtl = @convention(c) (Int32, Int32, Int32, UnsafeMutableRawPointer?) -> Int32
    private typealias EpollWait = @convention(c) (Int32, UnsafeMutableRawPointer?, Int32, Int32) -> Int32
    private typealias EventFD = @convention(c) (UInt32, Int32) -> Int32
    private typealias Accept4 = @convention(c) (Int32, UnsafeMutablePointer<sockaddr>?,
                                                 UnsafeMutablePointer<socklen_t>?, Int32) -> Int32

    private struct Table: @unchecked Sendable {  // immutable C function pointers, set once
        let epollCreate1: EpollCreate1
        let epollCtl: EpollCtl
        let epollWait: EpollWait
        let eventfd: EventFD
        let accept4: Accept4
    }

    private static let table: Table = {
        let libc = dlopen(nil, RTLD_NOW)
        func load<T>(_ name: String, as type: T.Type) -> T {
            guard let sym = dlsym(libc, name) else {
                fatalError("libc lacks \(name): FleetStack's server needs Linux (epoll)")
            }
            return unsafeBitCast(sym, to: type)
        }
        return Table(epollCreate1: load("epoll_create1", as: EpollCreate1.self),
                     epollCtl: load("epoll_ctl", as: EpollCtl.self),
                     epollWait: load("epoll_wait", as: EpollWait.self),
                     eventfd: load("eventfd", as: EventFD.self),
                     accept4: load("accept4", as: Accept4.self))
    }()

    // MARK: Constants from the kernel headers (stable Linux ABI).

    static let epollIn: UInt32 = 0x001
    static let epollOut: UInt32 = 0x004
    static let epollErr: UInt32 = 0x008
    static let epollHup: UInt32 = 0x010
    static let epollRdHup: UInt32 = 0x2000
    static let epollET: UInt32 = 1 << 31
    static let ctlAdd: Int32 = 1
    static let ctlDel: Int32 = 2
    static let cloexec: Int32 = 0o2000000      // O_CLOEXEC / EPOLL_CLOEXEC / EFD_CLOEXEC / SOCK_CLOEXEC
    static let nonblock: Int32 = 0o4000        // O_NONBLOCK / EFD_NONBLOCK / SOCK_NONBLOCK

    /// `struct epoll_event` is packed on x86_64 (12 bytes) and naturally aligned elsewhere (16).
    #if arch(x86_64)
    static let eventSize = 12
    static let eventDataOffset = 4
    #else
    static let eventSize = 16
    static let eventDataOffset = 8
    #endif

    // MARK: Wrappers: retry EINTR, turn -1 into a typed error.

    static func epollCreate() throws(ServerError) -> Int32 {
        let fd = table.epollCreate1(cloexec)
        if fd < 0 { throw .system(call: "epoll_create1", errno: errno) }
        return fd
    }

    static func epollAdd(_ epfd: Int32, fd: Int32, events: UInt32, token: UInt64) throws(ServerError) {
        var raw = (UInt64(0), UInt64(0))  // 16 bytes, enough for either layout
        withUnsafeMutableBytes(of: &raw) { p in
            p.storeBytes(of: events, toByteOffset: 0, as: UInt32.self)
            p.storeBytes(of: token, toByteOffset: eventDataOffset, as: UInt64.self)
        }
        let rc = withUnsafeMutableBytes(of: &raw) { table.epollCtl(epfd, ctlAdd, fd, $0.baseAddress) }
        if rc < 0 { throw .system(call: "epoll_ctl(ADD)", errno: errno) }
    }

    static func epollRemove(_ epfd: Int32, fd: Int32) {
        var raw = (UInt64(0), UInt64(0))  // pre-2.6.9 kernels wanted a non-null event
        _ = withUnsafeMutableBytes(of: &raw) { table.epollCtl(epfd, ctlDel, fd, $0.baseAddress) }
    }

    /// Waits for events into `buffer` (room for `capacity` events); returns how many arrived.
    static func epollWait(_ epfd: Int32, buffer: UnsafeMutableRawPointer, capacity: Int32,
                          timeoutMillis: Int32) throws(ServerError) -> Int {
        while true {
            let n = table.epollWait(epfd, buffer, capacity, timeoutMillis)
            if n >= 0 { return Int(n) }
            if errno == EINTR { return 0 }
            throw .system(call: "epoll_wait", errno: errno)
        }
    }

    /// Reads event `index` out of a buffer filled by `epollWait`.
    @inline(__always)
    static func event(at index: Int, in buffer: UnsafeMutableRawPointer) -> (events: UInt32, token: UInt64) {
        let base = buffer + index * eventSize
        return (base.loadUnaligned(as: UInt32.self),
                base.loadUnaligned(fromByteOffset: eventDataOffset, as: UInt64.self))
    }

    static func makeEventFD() throws(ServerError) -> Int32 {
        let fd = table.eventfd(0, cloexec | nonblock)
        if fd < 0 { throw .system(call: "eventfd", errno: errno) }
        return fd
    }

    /// Accepts one connection as a non-blocking, close-on-exec socket; nil when none is pending.
    static func accept(_ listener: Int32, address: UnsafeMutablePointer<sockaddr_storage>) -> (fd: Int32, errno: Int32) {
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        while true {
            let fd = address.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                table.accept4(listener, $0, &length, cloexec | nonblock)
            }
            if fd >= 0 { return (fd, 0) }
            if errno == EINTR || errno == ECONNABORTED { continue }
            return (-1, errno)
        }
    }
}
