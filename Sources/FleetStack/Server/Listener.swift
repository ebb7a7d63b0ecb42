#if canImport(Glibc)
import Glibc
#endif
import FleetCore

/// Opens the non-blocking listening socket.
enum ListenSocket {
    /// Binds `host:port` (port 0 → an ephemeral port) and listens; returns the fd and bound port.
    static func open(host: String, port: Int, backlog: Int32 = 1024) throws(ServerError) -> (fd: Int32, port: Int) {
        guard (0...65_535).contains(port) else { throw .invalidPort(port) }
        let literal = host == "localhost" ? "127.0.0.1" : host
        var storage = sockaddr_storage()
        let length: socklen_t
        let family: Int32
        var v4 = in_addr()
        var v6 = in6_addr()
        if inet_pton(AF_INET, literal, &v4) == 1 {
            family = AF_INET
            length = socklen_t(MemoryLayout<sockaddr_in>.size)
            withUnsafeMutableBytes(of: &storage) { raw in
                let sin = raw.baseAddress!.assumingMemoryBound(to: sockaddr_in.self)
                sin.pointee.sin_family = sa_family_t(AF_INET)
                sin.pointee.sin_port = in_port_t(UInt16(port).bigEndian)
                sin.pointee.sin_addr = v4
            }
        } else if inet_pton(AF_INET6, literal, &v6) == 1 {
            family = AF_INET6
            length = socklen_t(MemoryLayout<sockaddr_in6>.size)
            withUnsafeMutableBytes(of: &storage) { raw in
                let sin6 = raw.baseAddress!.assumingMemoryBound(to: sockaddr_in6.self)
                sin6.pointee.sin6_family = sa_family_t(AF_INET6)
                sin6.pointee.sin6_port = in_port_t(UInt16(port).bigEndian)
                sin6.pointee.sin6_addr = v6
            }
        } else {
            throw .invalidHost(host)
        }

        let fd = socket(family, Int32(SOCK_STREAM.rawValue) | LinuxSyscalls.nonblock | LinuxSyscalls.cloexec, 0)
        if fd < 0 { throw .system(call: "socket", errno: errno) }
        func fail(_ call: String) -> ServerError {
            let code = errno
            Glibc.close(fd)
            return .system(call: call, errno: code)
        }
        var one: Int32 = 1
        if setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size)) != 0 {
            throw fail("setsockopt(SO_REUSEADDR)")
        }
        if family == AF_INET6 {
            // Serve exactly the address asked for; `::1` must not also take IPv4 traffic.
            _ = setsockopt(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &one, socklen_t(MemoryLayout<Int32>.size))
        }
        let bound = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        if bound != 0 { throw fail("bind(\(host):\(port))") }
        if listen(fd, backlog) != 0 { throw fail("listen") }
        var actual = sockaddr_storage()
        var actualLength = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let named = withUnsafeMutablePointer(to: &actual) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &actualLength) }
        }
        if named != 0 { throw fail("getsockname") }
        return (fd, SocketAddress.port(of: actual))
    }
}

/// Formats socket addresses as `ip:port` / `[ip6]:port`.
enum SocketAddress {
    static func port(of storage: sockaddr_storage) -> Int {
        var copy = storage
        return withUnsafeBytes(of: &copy) { raw in
            // sin_port and sin6_port sit at the same offset (2), in network byte order.
            Int(UInt16(bigEndian: raw.loadUnaligned(fromByteOffset: 2, as: UInt16.self)))
        }
    }

    static func describe(_ storage: sockaddr_storage) -> String {
        var copy = storage
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        let family = Int32(storage.ss_family)
        let ok: Bool = withUnsafeMutableBytes(of: &copy) { raw in
            if family == AF_INET {
                let sin = raw.baseAddress!.assumingMemoryBound(to: sockaddr_in.self)
                return inet_ntop(AF_INET, &sin.pointee.sin_addr, &text, socklen_t(text.count)) != nil
            } else if family == AF_INET6 {
                let sin6 = raw.baseAddress!.assumingMemoryBound(to: sockaddr_in6.self)
                return inet_ntop(AF_INET6, &sin6.pointee.sin6_addr, &text, socklen_t(text.count)) != nil
            }
            return false
        }
        guard ok else { return "unknown" }
        let ip = String(decoding: text.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return family == AF_INET6 ? "[\(ip)]:\(port(of: storage))" : "\(ip):\(port(of: storage))"
    }
}

/// Accepts connections on the first loop and deals them round-robin to all loops.
///
/// One acceptor keeps the spread even: with a listener shared by every loop, whichever thread
/// woke first would drain the whole backlog (wrk opens all its connections at once).
/// Lives on the first loop's thread only.
final class Acceptor {
    private let listener: Int32
    private let loops: [EventLoop]
    private let gate: ConnectionGate
    private var next = 0
    private var pausedUntil: UInt64?

    init(listener: Int32, loops: [EventLoop], gate: ConnectionGate) {
        self.listener = listener
        self.loops = loops
        self.gate = gate
    }

    func acceptPending(on loop: EventLoop) {
        var address = sockaddr_storage()
        for _ in 0..<128 {  // bounded, so a connection storm cannot starve the loop's other sockets
            let (fd, code) = LinuxSyscalls.accept(listener, address: &address)
            if fd < 0 {
                if code == EMFILE || code == ENFILE || code == ENOBUFS || code == ENOMEM {
                    // Out of descriptors: stop watching for a moment instead of spinning on the
                    // still-pending connection.
                    loop.unwatchListener(listener)
                    pausedUntil = MonotonicClock.now() + 100_000_000
                }
                return
            }
            guard gate.tryAcquire() else {
                Glibc.close(fd)  // over maxConnections: refuse by closing at once
                continue
            }
            var one: Int32 = 1
            _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            let remote = SocketAddress.describe(address)
            let target = loops[next % loops.count]
            next &+= 1
            if target === loop {
                loop.register(fd: fd, remote: remote)
            } else {
                target.adopt(fd: fd, remote: remote)
            }
        }
    }

    func resumeIfPaused(on loop: EventLoop, now: UInt64) {
        guard let until = pausedUntil, now >= until else { return }
        pausedUntil = nil
        try? loop.watchListener(listener)
    }
}
