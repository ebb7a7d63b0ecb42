import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A loopback HTTP server that answers every request after a fixed delay, one connection at a
/// time: the stalled server of wrk2's coordinated-omission example, for the blast's rate test.
final class BlastSlowServer: @unchecked Sendable {
    let port: Int
    private let fd: Int32
    private let delay: Double
    // Guarded by `lock`: set once by stop(), read by the serving thread.
    private let lock = NSLock()
    private var stopped = false

    init(delaySeconds: Double) throws {
        delay = delaySeconds
        let s = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        let ok = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(s, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        } == 0 && listen(s, 16) == 0
        guard s >= 0, ok else { throw POSIXError(.EADDRNOTAVAIL) }
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(s, $0, &len) }
        }
        fd = s
        port = Int(UInt16(bigEndian: addr.sin_port))
        Thread { [self] in serve() }.start()
    }

    var url: String { "http://127.0.0.1:\(port)/slow" }

    func stop() {
        lock.withLock { stopped = true }
        shutdown(fd, Int32(SHUT_RDWR))
    }

    deinit { close(fd) }

    private func serve() {
        let reply = Array("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok".utf8)
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !lock.withLock({ stopped }) {
            let c = accept(fd, nil, nil)
            if c < 0 { return }
            // GET requests without bodies: each read that ends in a blank line is one request.
            var pending: [UInt8] = []
            while true {
                let n = buffer.withUnsafeMutableBytes { read(c, $0.baseAddress, $0.count) }
                if n <= 0 { break }
                pending += buffer[0..<n]
                while let end = pending.indices.dropLast(3).first(where: { pending[$0..<$0 + 4].elementsEqual([13, 10, 13, 10]) }) {
                    pending.removeFirst(end + 4)
                    Thread.sleep(forTimeInterval: delay)
                    _ = reply.withUnsafeBytes { write(c, $0.baseAddress, $0.count) }
                }
            }
            close(c)
        }
    }
}
