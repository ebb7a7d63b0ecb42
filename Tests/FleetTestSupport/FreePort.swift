import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A loopback port with nothing listening: bound once to learn a free number, then closed.
public func freeLoopbackPort() -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    precondition(fd >= 0, "socket(): errno \(errno)")
    defer { close(fd) }
    var addr = sockaddr_in()
    addr.sin_family = sa_family_t(AF_INET)
    addr.sin_addr.s_addr = inet_addr("127.0.0.1")
    var len = socklen_t(MemoryLayout<sockaddr_in>.size)
    let ok = withUnsafeMutablePointer(to: &addr) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, len) == 0 && getsockname(fd, $0, &len) == 0 }
    }
    precondition(ok, "binding an ephemeral loopback port failed: errno \(errno)")
    return Int(UInt16(bigEndian: addr.sin_port))
}
