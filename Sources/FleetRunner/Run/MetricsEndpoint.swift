import FleetCore
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// `--metrics-listen 127.0.0.1:PORT`: a minimal HTTP/1.1 endpoint that answers `GET /metrics`
/// with the Prometheus text of the run so far. One thread, one connection at a time, each closed
/// after its answer: a scraper asks every few seconds, so nothing more is needed, and the load
/// generator's own threads are never involved. Loopback only, like every address Fleet uses in
/// tests and CI; a remote Prometheus scrapes it through the pod's port-forward or a sidecar.
public final class MetricsEndpoint: Sendable {
    public let host: String
    /// The bound port (the one asked for, or the kernel's choice for 0).
    public let port: Int
    private let fd: Int32
    private let body: @Sendable () -> String
    private let contentType: String
    private let stopped = Atomic<Bool>(false)

    /// Binds `listen` ("127.0.0.1:9464"); a non-loopback or malformed address is bad input.
    public init(listen address: String, contentType: String, body: @escaping @Sendable () -> String) throws {
        guard let colon = address.lastIndex(of: ":"), let port = Int(address[address.index(after: colon)...]), (0...65535).contains(port) else {
            throw RunnerError.badInput("--metrics-listen: expected HOST:PORT (127.0.0.1:9464), got '\(address)'")
        }
        let host = String(address[..<colon])
        var addr = sockaddr_in()
        guard Loopback.isLoopbackHost(host), inet_pton(AF_INET, host, &addr.sin_addr) == 1 else {
            throw RunnerError.badInput("--metrics-listen: \(host) is not an IPv4 loopback address (127.0.0.0/8)")
        }
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = in_port_t(UInt16(port).bigEndian)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw RunnerError.failed("--metrics-listen: socket: \(String(cString: strerror(errno)))") }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        let bound = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, Glibc.listen(fd, 16) == 0 else {
            let e = String(cString: strerror(errno))
            close(fd)
            throw RunnerError.failed("--metrics-listen: cannot listen on \(host):\(port): \(e)")
        }
        var actual = sockaddr_in()
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &actual) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) } }
        self.host = host
        self.port = Int(UInt16(bigEndian: actual.sin_port))
        self.fd = fd
        self.body = body
        self.contentType = contentType
        let t = Thread { [self] in serve() }
        t.name = "fleet-metrics"  // the running thread keeps itself (and `self`) alive until `stop`
        t.start()
    }

    public var url: String { "http://\(host):\(port)/metrics" }

    /// Stops accepting; the serving thread notices within its poll interval and closes the socket.
    public func stop() { stopped.store(true, ordering: .relaxed) }

    private func serve() {
        defer { close(fd) }
        while !stopped.load(ordering: .relaxed) {
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&p, 1, 200) > 0 else { continue }
            let c = accept(fd, nil, nil)
            guard c >= 0 else { continue }
            answer(c)
            close(c)
        }
    }

    private func answer(_ c: Int32) {
        var tv = timeval(tv_sec: 2, tv_usec: 0)
        setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(c, SOL_SOCKET, SO_SNDTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        var request: [UInt8] = []
        var buf = [UInt8](repeating: 0, count: 2048)
        // The head only (a GET has no body); a client that sends nothing for 2 s is dropped.
        while request.count < 16_384 {
            let n = buf.withUnsafeMutableBytes { recv(c, $0.baseAddress, $0.count, 0) }
            if n <= 0 { return }
            request.append(contentsOf: buf[0..<n])
            if Self.hasHeadEnd(request) { break }
        }
        let line = String(decoding: request.prefix { $0 != 13 && $0 != 10 }, as: UTF8.self).split(separator: " ")
        let (status, type, text): (String, String, String)
        if line.count >= 2, line[0] == "GET", line[1] == "/metrics" || line[1].hasPrefix("/metrics?") {
            (status, type, text) = ("200 OK", contentType, body())
        } else {
            (status, type, text) = ("404 Not Found", "text/plain; charset=utf-8", "only GET /metrics is served here\n")
        }
        let payload = Array(text.utf8)
        let head = "HTTP/1.1 \(status)\r\nContent-Type: \(type)\r\nContent-Length: \(payload.count)\r\nConnection: close\r\n\r\n"
        send(c, Array(head.utf8) + payload)
    }

    /// Whether the bytes hold the blank line that ends an HTTP head.
    static func hasHeadEnd(_ a: [UInt8]) -> Bool {
        guard a.count >= 4 else { return false }
        for i in 0...(a.count - 4) where a[i] == 13 && a[i + 1] == 10 && a[i + 2] == 13 && a[i + 3] == 10 { return true }
        return false
    }

    private func send(_ c: Int32, _ bytes: [UInt8]) {
        var off = 0
        while off < bytes.count {
            let n = bytes[off...].withUnsafeBytes { Glibc.send(c, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return }
            off += n
        }
    }
}
