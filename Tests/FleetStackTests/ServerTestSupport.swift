#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import Foundation
import FleetHTTPServer
import Synchronization
import XCTest

/// A blocking loopback TCP client for server tests, written on raw sockets so the tests do not
/// go through any of the server's own parsing code.
final class RawClient {
    private(set) var fd: Int32
    private var pending: [UInt8] = []

    struct Failure: Error, CustomStringConvertible { let description: String }

    init(port: Int, ipv6: Bool = false) throws {
        fd = socket(ipv6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: errno \(errno)") }
        let rc: Int32
        if ipv6 {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = in_port_t(UInt16(port).bigEndian)
            address.sin6_addr = in6addr_loopback
            rc = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size))
                }
            }
        } else {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            rc = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
        guard rc == 0 else {
            let code = errno
            Glibc.close(fd)
            fd = -1  // deinit still runs for a fully initialised object
            throw Failure(description: "connect to loopback port \(port): errno \(code)")
        }
    }

    /// Closes with a reset instead of a FIN, like a client that crashed.
    func reset() {
        var option = linger(l_onoff: 1, l_linger: 0)
        setsockopt(fd, SOL_SOCKET, SO_LINGER, &option, socklen_t(MemoryLayout<linger>.size))
        Glibc.close(fd)
        fd = -1
    }

    deinit { if fd >= 0 { Glibc.close(fd) } }

    func send(_ text: String) throws { try send(Array(text.utf8)) }

    func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { throw Failure(description: "send failed: errno \(errno)") }
            offset += n
        }
    }

    /// Ends the connection from our side (the descriptor itself is released on deinit).
    func close() { shutdown(fd, Int32(SHUT_RDWR)) }

    /// Reads more bytes within `timeout` seconds; returns false on EOF or reset.
    private func fill(deadline: UInt64) throws -> Bool {
        let now = DispatchTime.now().uptimeNanoseconds
        guard now < deadline else { throw Failure(description: "timed out waiting for the server") }
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let waitMillis = Int32(min((deadline - now) / 1_000_000 + 1, 60_000))
        guard poll(&poller, 1, waitMillis) > 0 else { throw Failure(description: "timed out waiting for the server") }
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if n <= 0 { return false }
        pending.append(contentsOf: chunk[0..<n])
        return true
    }

    /// Reads one response framed by Content-Length (or none for HEAD / 204 / 304 / 1xx).
    func readResponse(timeout: Double = 5, headRequest: Bool = false) throws -> RawResponse {
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(timeout * 1e9)
        while true {
            if let end = headEnd() {
                var response = try RawResponse(head: Array(pending[0..<end]))
                var length = 0
                if !headRequest && response.status >= 200 && response.status != 204 && response.status != 304 {
                    length = Int(response.header("content-length") ?? "") ?? 0
                }
                while pending.count < end + length {
                    guard try fill(deadline: deadline) else { throw Failure(description: "connection closed mid-body") }
                }
                response.body = Array(pending[end..<(end + length)])
                pending.removeFirst(end + length)
                return response
            }
            guard try fill(deadline: deadline) else {
                throw Failure(description: "connection closed before a response (\(pending.count) bytes buffered)")
            }
        }
    }

    /// True when the server closes the connection within `timeout` seconds (bytes before the
    /// close are discarded).
    func closedByServer(within timeout: Double) -> Bool {
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(timeout * 1e9)
        while true {
            do {
                if try !fill(deadline: deadline) { return true }
            } catch {
                return false
            }
        }
    }

    private func headEnd() -> Int? {
        guard pending.count >= 4 else { return nil }
        for i in 0...(pending.count - 4)
        where pending[i] == 13 && pending[i + 1] == 10 && pending[i + 2] == 13 && pending[i + 3] == 10 {
            return i + 4
        }
        return nil
    }
}

struct RawResponse {
    var status: Int
    var headers: [(String, String)]
    var body: [UInt8] = []

    init(head: [UInt8]) throws {
        let text = String(decoding: head, as: UTF8.self)
        var lines = text.components(separatedBy: "\r\n").filter { !$0.isEmpty }
        let statusLine = lines.removeFirst().split(separator: " ")
        guard statusLine.count >= 2, statusLine[0] == "HTTP/1.1", let code = Int(statusLine[1]) else {
            throw RawClient.Failure(description: "bad status line in \(text)")
        }
        status = code
        headers = lines.map { line in
            let colon = line.firstIndex(of: ":")!
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
    }

    func header(_ name: String) -> String? {
        headers.first { $0.0.lowercased() == name.lowercased() }?.1
    }

    var text: String { String(decoding: body, as: UTF8.self) }

    /// The `error.code` of a JSON error envelope, checked to have all three required fields.
    func errorCode(file: StaticString = #filePath, line: UInt = #line) -> String? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any],
              let error = object["error"] as? [String: Any],
              error["message"] is String, error["retryable"] is Bool else {
            XCTFail("not an error envelope: \(text)", file: file, line: line)
            return nil
        }
        return error["code"] as? String
    }
}

/// The handler the server tests run against.
///
/// `/echo` answers with the request body and describes the request in `x-*` headers;
/// `/slow?ms=N` answers from another thread after N ms; `/small` accepts at most 1 KiB of body.
/// Every request that reaches the handler is recorded, and so is every `/slow` answer once it
/// has been handed to the server, so tests wait for a late answer instead of sleeping.
final class RecordingHandler: ServerHandler {
    private let seen = Mutex<[ServerRequest]>([])
    private let lateAnswers = Mutex(0)

    var requests: [ServerRequest] { seen.withLock { $0 } }
    var callCount: Int { seen.withLock { $0.count } }
    /// `/slow` answers already given to the server's `respond` (which has returned).
    var slowResponsesGiven: Int { lateAnswers.withLock { $0 } }

    func bodyLimit(method: String, path: String) -> Int {
        path == "/small" ? 1024 : 1 << 20
    }

    func handle(_ request: ServerRequest, respond: @escaping @Sendable (ServerResponse) -> Void) {
        seen.withLock { $0.append(request) }
        let headers = [
            HeaderField(name: "x-method", value: request.method),
            HeaderField(name: "x-path", value: request.path),
            HeaderField(name: "x-tag", value: request.query["n"] ?? ""),
            HeaderField(name: "x-remote", value: request.remoteAddress),
        ]
        let response = ServerResponse(status: 200, headers: headers, body: request.body)
        if request.path == "/slow", let ms = Int(request.query["ms"] ?? ""), ms > 0 {
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(ms)) { [self] in
                respond(response)
                lateAnswers.withLock { $0 += 1 }
            }
        } else {
            respond(response)
        }
    }
}

/// Starts a server on an ephemeral loopback port for one test.
func startServer(_ handler: RecordingHandler, limits: ServerLimits = .init(), ioThreads: Int = 2)
    throws -> (HTTPServer, Int) {
    let server = HTTPServer(port: 0, limits: limits, ioThreads: ioThreads, handler: handler)
    let port = try server.start()
    return (server, port)
}
