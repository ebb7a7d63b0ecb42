#if canImport(Glibc)
import Glibc
#endif

/// Why the HTTP server could not start or keep running.
public enum ServerError: Error, Equatable, CustomStringConvertible {
    /// The host is not a literal IPv4/IPv6 address or `localhost`.
    case invalidHost(String)
    /// The port is outside 0...65535.
    case invalidPort(Int)
    /// `start()` was called twice, or after `stop()`.
    case alreadyStarted
    /// A system call failed; `call` names it, `errno` says why.
    case system(call: String, errno: Int32)

    public var description: String {
        switch self {
        case .invalidHost(let host):
            return "invalid listen host '\(host)': expected an IPv4 or IPv6 literal or 'localhost'"
        case .invalidPort(let port):
            return "invalid listen port \(port): expected 0...65535 (0 picks a free port)"
        case .alreadyStarted:
            return "the HTTP server was already started (a server starts once)"
        case .system(let call, let code):
            return "\(call) failed: \(String(cString: strerror(code))) (errno \(code))"
        }
    }
}
