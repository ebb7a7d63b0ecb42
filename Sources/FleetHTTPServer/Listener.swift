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

        let fd = try Sys.socket(family: family, type: Int32(SOCK_STREAM.rawValue))
        do throws(ServerError) {
            try Sys.setOption(fd, level: SOL_SOCKET, name: SO_REUSEADDR, 1, call: "setsockopt(SO_REUSEADDR)")
            if family == AF_INET6 {
                // Serve exactly the address asked for; `::1` must not also take IPv4 traffic.
                try? Sys.setOption(fd, level: Int32(IPPROTO_IPV6), name: IPV6_V6ONLY, 1, call: "setsockopt(IPV6_V6ONLY)")
            }
            do throws(ServerError) {
                try withUnsafePointer(to: &storage) { (p) throws(ServerError) in
                    try p.withMemoryRebound(to: sockaddr.self, capacity: 1) { (a) throws(ServerError) in
                        try Sys.bind(fd, a, length: length)
                    }
                }
            } catch .system(_, let code) {
                throw .system(call: "bind(\(host):\(port))", errno: code)  // say what was asked for
            }
            try Sys.listen(fd, backlog: backlog)
            return (fd, SocketAddress.port(of: try Sys.localAddress(fd)))
        } catch {
            try? Sys.close(fd)
            throw error
        }
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
            let fd: Int32
            do throws(ServerError) {
                guard let accepted = try Sys.accept(listener, address: &address) else { return }
                fd = accepted
            } catch {
                if case .system(_, let code) = error, code == EMFILE || code == ENFILE || code == ENOBUFS || code == ENOMEM {
                    // Out of descriptors: stop watching for a moment instead of spinning on the
                    // still-pending connection.
                    loop.unwatchListener(listener)
                    pausedUntil = MonotonicClock.now() + 100_000_000
                }
                return
            }
            guard gate.tryAcquire() else {
                try? Sys.close(fd)  // over maxConnections: refuse by closing at once
                continue
            }
            try? Sys.setOption(fd, level: Int32(IPPROTO_TCP), name: TCP_NODELAY, 1, call: "setsockopt(TCP_NODELAY)")
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
