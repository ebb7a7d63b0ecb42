import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A tiny HTTP/1.1 server on a raw loopback socket, for driving the engine, the client's retry
/// rules and the blast into every outcome: a normal answer, a late one, silence (timeouts), a
/// slammed connection (reset), garbage, hostile sizes.
///
/// A thread per connection is fine for tests (tens of connections); requests are read by
/// Content-Length and handed to `reply`, which chooses what happens on the wire.
public final class RawHTTPServer: @unchecked Sendable {
    // @unchecked: the mutable state below is touched only under `lock`; the rest is `let`.
    /// A request as the server saw it.
    public struct Request: Sendable {
        public var method: String
        public var path: String
        public var headers: [(String, String)]
        public var body: [UInt8]

        public func header(_ name: String) -> String? {
            headers.first { $0.0.lowercased() == name.lowercased() }?.1
        }
    }

    /// What the server does with a request.
    public enum Reply: Sendable {
        /// Writes these bytes and keeps the connection for the next request.
        case raw([UInt8])
        /// Never answers; the connection stays open until the server stops.
        case silence
        /// Closes the connection without a byte.
        case close
        /// Writes these bytes, then closes the connection cleanly (FIN).
        case rawThenClose([UInt8])
        /// Writes these bytes, then resets the connection (RST: SO_LINGER 0).
        case rawThenReset([UInt8])

        /// A well-formed response with a Content-Length body.
        public static func http(_ status: Int, headers: [(String, String)] = [], body: [UInt8] = []) -> Reply {
            var head = "HTTP/1.1 \(status) X\r\nContent-Length: \(body.count)\r\n"
            for (n, v) in headers { head += "\(n): \(v)\r\n" }
            head += "\r\n"
            return .raw(Array(head.utf8) + body)
        }
    }

    public let port: Int
    private let listenFD: Int32
    private let reply: @Sendable (Request) -> Reply
    // Guarded by `lock`: open client sockets (closed on stop) and every request seen.
    private let lock = NSLock()
    /// Closed while bodies are held (`holdBodies`); once opened, each waiter passes it on.
    private let bodyGate: DispatchSemaphore?
    private var clients: Set<Int32> = []
    private var seen: [Request] = []
    private var stopped = false
    private var partialBodies: [Int] = []
    private var acceptCount = 0
    private var peerAddresses: [String] = []

    public var baseURL: String { "http://127.0.0.1:\(port)" }
    public var requests: [Request] { lock.withLock { seen } }
    /// Body bytes received on connections that closed mid-body (uploads cut short).
    public var truncatedBodyBytes: [Int] { lock.withLock { partialBodies } }
    /// Connections accepted so far.
    public var acceptedConnections: Int { lock.withLock { acceptCount } }
    /// The client IPv4 address of every accepted connection, in order.
    public var peers: [String] { lock.withLock { peerAddresses } }

    /// `holdBodies`: the server reads no request body until `releaseBodies()` (or `stop()`), so
    /// a client's upload larger than the sockets' buffers must wait for its socket to drain.
    public init(holdBodies: Bool = false, reply: @escaping @Sendable (Request) -> Reply) throws {
        bodyGate = holdBodies ? DispatchSemaphore(value: 0) : nil
        self.reply = reply
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        addr.sin_port = 0
        let bound = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 1024) == 0 else {
            close(fd)
            throw POSIXError(.init(rawValue: errno) ?? .EIO)
        }
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) }
        }
        listenFD = fd
        port = Int(UInt16(bigEndian: addr.sin_port))
        Thread { [self] in acceptLoop() }.start()
    }

    /// Lets the connections read the request bodies they hold (`holdBodies`).
    public func releaseBodies() { bodyGate?.signal() }

    /// Closes the listener and every connection; the server threads then exit.
    public func stop() {
        releaseBodies()
        let open = lock.withLock { () -> Set<Int32> in
            stopped = true
            return clients
        }
        shutdown(listenFD, Int32(SHUT_RDWR))
        for fd in open { shutdown(fd, Int32(SHUT_RDWR)) }
    }

    deinit { close(listenFD) }

    private func acceptLoop() {
        while true {
            var peer = sockaddr_in()
            var len = socklen_t(MemoryLayout<sockaddr_in>.size)
            let fd = withUnsafeMutablePointer(to: &peer) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { accept(listenFD, $0, &len) }
            }
            if fd < 0 {
                if errno == EINTR { continue }
                return
            }
            let a = UInt32(bigEndian: peer.sin_addr.s_addr)
            let address = "\(a >> 24).\((a >> 16) & 255).\((a >> 8) & 255).\(a & 255)"
            let accepted = lock.withLock { () -> Bool in
                if stopped { return false }
                clients.insert(fd)
                acceptCount += 1
                peerAddresses.append(address)
                return true
            }
            guard accepted else { close(fd); return }
            Thread { [self] in serve(fd) }.start()
        }
    }

    private func serve(_ fd: Int32) {
        defer {
            lock.withLock { _ = clients.remove(fd) }
            close(fd)
        }
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        func fill() -> Bool {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n <= 0 { return false }
            buffer.append(contentsOf: chunk[0..<n])
            return true
        }
        while true {
            var headEnd: Int?
            while headEnd == nil {
                headEnd = Self.find([13, 10, 13, 10], in: buffer)
                if headEnd == nil && !fill() { return }
            }
            guard var request = Self.parseHead(Array(buffer[0..<headEnd!])) else { return }
            buffer.removeFirst(headEnd! + 4)
            let length = Int(request.header("Content-Length") ?? "0") ?? 0
            if let gate = bodyGate, length > 0 {
                gate.wait()
                gate.signal()
            }
            while buffer.count < length {
                if !fill() {
                    lock.withLock { partialBodies.append(buffer.count) }
                    return
                }
            }
            request.body = Array(buffer[0..<length])
            buffer.removeFirst(length)
            lock.withLock { seen.append(request) }
            switch reply(request) {
            case .close:
                return
            case .silence:
                while fill() {}
                return
            case .raw(let bytes):
                if !Self.send(bytes, to: fd) { return }
            case .rawThenClose(let bytes):
                _ = Self.send(bytes, to: fd)
                return
            case .rawThenReset(let bytes):
                _ = Self.send(bytes, to: fd)
                var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
                setsockopt(fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
                return
            }
        }
    }

    private static func send(_ bytes: [UInt8], to fd: Int32) -> Bool {
        var sent = 0
        while sent < bytes.count {
            // MSG_NOSIGNAL: a peer (or stop()) that has closed the connection is an error here, not SIGPIPE.
            let n = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return false }
            sent += n
        }
        return true
    }

    private static func find(_ needle: [UInt8], in hay: [UInt8]) -> Int? {
        guard hay.count >= needle.count else { return nil }
        for i in 0...(hay.count - needle.count) where hay[i] == needle[0] && Array(hay[i..<i + needle.count]) == needle {
            return i
        }
        return nil
    }

    private static func parseHead(_ head: [UInt8]) -> Request? {
        let lines = String(decoding: head, as: UTF8.self).components(separatedBy: "\r\n")
        let parts = lines[0].split(separator: " ")
        guard parts.count >= 2 else { return nil }
        var headers: [(String, String)] = []
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers.append((String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
        }
        return Request(method: String(parts[0]), path: String(parts[1]), headers: headers, body: [])
    }
}
