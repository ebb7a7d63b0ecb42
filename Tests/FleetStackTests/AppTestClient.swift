import Foundation
import FleetCore
#if canImport(Glibc)
import Glibc
#endif

/// A response as the tests see it.
struct AppTestResponse {
    let status: Int
    let headers: [(String, String)]
    let body: [UInt8]

    func header(_ name: String) -> String? {
        headers.first { $0.0.lowercased() == name.lowercased() }?.1
    }

    /// The body parsed as JSON (`.null` when empty or not JSON).
    var json: JSONValue { (try? JSONValue.parse(body)) ?? .null }
    var text: String { String(decoding: body, as: UTF8.self) }
    /// `error.code` of an error envelope.
    var errorCode: String? { json["error"]?["code"]?.string }
}

/// A tiny blocking HTTP/1.1 client over a raw loopback socket, one connection per request
/// (`Connection: close`), so that the app tests depend on nothing but the server under test.
enum AppTestClient {
    struct Failure: Error, CustomStringConvertible { let description: String }

    static func send(port: Int, method: String, target: String, headers: [(String, String)] = [],
                     body: [UInt8] = [], timeoutS: Int = 10) throws -> AppTestResponse {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket() failed") }
        defer { close(fd) }
        var tv = timeval(tv_sec: timeoutS, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = in_port_t(UInt16(port).bigEndian)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard rc == 0 else { throw Failure(description: "connect to port \(port) failed (errno \(errno))") }

        var head = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        for (k, v) in headers { head += "\(k): \(v)\r\n" }
        head += "Content-Length: \(body.count)\r\n\r\n"
        let out = Array(head.utf8) + body
        var off = 0
        while off < out.count {
            let n = out[off...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            guard n > 0 else { throw Failure(description: "write failed (errno \(errno))") }
            off += n
        }
        var data: [UInt8] = []
        var buf = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = buf.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 { throw Failure(description: "read failed or timed out (errno \(errno))") }
            if n == 0 { break }
            data.append(contentsOf: buf[0..<n])
        }
        return try parse(data)
    }

    static func parse(_ data: [UInt8]) throws -> AppTestResponse {
        let sep: [UInt8] = [13, 10, 13, 10]
        guard let end = (0...(max(0, data.count - 4))).first(where: { data.count >= 4 && Array(data[$0..<($0 + 4)]) == sep }) else {
            throw Failure(description: "no complete response head in \(data.count) bytes")
        }
        let lines = String(decoding: data[0..<end], as: UTF8.self).components(separatedBy: "\r\n")
        let statusParts = lines[0].split(separator: " ")
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else { throw Failure(description: "bad status line '\(lines[0])'") }
        var headers: [(String, String)] = []
        for l in lines.dropFirst() {
            guard let c = l.firstIndex(of: ":") else { continue }
            headers.append((String(l[..<c]), l[l.index(after: c)...].trimmingCharacters(in: .whitespaces)))
        }
        var body = Array(data[(end + 4)...])
        if let cl = headers.first(where: { $0.0.lowercased() == "content-length" }).flatMap({ Int($0.1) }), cl < body.count {
            body = Array(body[0..<cl])
        }
        return AppTestResponse(status: status, headers: headers, body: body)
    }
}
