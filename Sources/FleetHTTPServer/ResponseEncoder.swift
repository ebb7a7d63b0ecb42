#if canImport(Glibc)
import Glibc
#endif

/// Serialises responses into a connection's output buffer.
///
/// Framing belongs to the server: it always writes `content-length` (except for 204 and 304,
/// which have no body by definition), writes `connection: close` when the connection will close,
/// and drops the handler's own `content-length`, `transfer-encoding`, `connection` and `date`
/// headers, as well as any header whose name or value would break the message (CR/LF injection).
enum ResponseEncoder {
    static func encode(_ response: ServerResponse, into out: ByteBuffer, closing: Bool,
                       http10KeepAlive: Bool, headRequest: Bool, date: DateHeaderCache) {
        let status = (200...599).contains(response.status) ? response.status : 500
        out.appendStatic("HTTP/1.1 ")
        out.appendDecimal(status)
        out.append(0x20)
        out.append(reasonPhrase(status))
        out.appendStatic("\r\n")
        for field in response.headers where isSendable(field) {
            out.append(field.name)
            out.appendStatic(": ")
            out.append(field.value)
            out.appendStatic("\r\n")
        }
        let bodyless = status == 204 || status == 304
        if !bodyless {
            out.appendStatic("content-length: ")
            out.appendDecimal(response.body.count)
            out.appendStatic("\r\n")
        }
        if closing {
            out.appendStatic("connection: close\r\n")
        } else if http10KeepAlive {
            out.appendStatic("connection: keep-alive\r\n")
        }
        out.append(date.current())
        out.appendStatic("\r\n")
        if !bodyless && !headRequest {
            out.append(response.body)
        }
    }

    /// The interim response that tells a client waiting on `Expect: 100-continue` to send its body.
    static func encodeContinue(into out: ByteBuffer) {
        out.appendStatic("HTTP/1.1 100 Continue\r\n\r\n")
    }

    private static func isSendable(_ field: HeaderField) -> Bool {
        let name = field.name
        if name.isEmpty || !name.utf8.allSatisfy(RequestHead.isTokenByte) { return false }
        if field.value.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0 }) { return false }
        switch name.utf8.count {
        case 4: return !asciiCaseInsensitiveEquals(name, "date")
        case 10: return !asciiCaseInsensitiveEquals(name, "connection")
        case 14: return !asciiCaseInsensitiveEquals(name, "content-length")
        case 17: return !asciiCaseInsensitiveEquals(name, "transfer-encoding")
        default: return true
        }
    }

    static func reasonPhrase(_ status: Int) -> String {
        switch status {
        case 200: return "OK"
        case 201: return "Created"
        case 202: return "Accepted"
        case 204: return "No Content"
        case 301: return "Moved Permanently"
        case 302: return "Found"
        case 304: return "Not Modified"
        case 400: return "Bad Request"
        case 401: return "Unauthorized"
        case 402: return "Payment Required"
        case 403: return "Forbidden"
        case 404: return "Not Found"
        case 405: return "Method Not Allowed"
        case 408: return "Request Timeout"
        case 409: return "Conflict"
        case 410: return "Gone"
        case 411: return "Length Required"
        case 412: return "Precondition Failed"
        case 413: return "Content Too Large"
        case 415: return "Unsupported Media Type"
        case 422: return "Unprocessable Content"
        case 426: return "Upgrade Required"
        case 428: return "Precondition Required"
        case 429: return "Too Many Requests"
        case 431: return "Request Header Fields Too Large"
        case 500: return "Internal Server Error"
        case 501: return "Not Implemented"
        case 502: return "Bad Gateway"
        case 503: return "Service Unavailable"
        case 504: return "Gateway Timeout"
        case 505: return "HTTP Version Not Supported"
        default: return "Status"
        }
    }
}

/// The `date:` header line, formatted at most once per second per I/O thread.
final class DateHeaderCache {
    private var second = -1
    private var line: [UInt8] = []

    /// `date: Sun, 06 Nov 1994 08:49:37 GMT\r\n` for the current second.
    func current() -> [UInt8] {
        let now = time(nil)
        if now != second {
            second = now
            line = Self.format(now)
        }
        return line
    }

    private static let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                 "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    private static func format(_ t: time_t) -> [UInt8] {
        var seconds = t
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func two(_ v: Int32) -> String { v < 10 ? "0\(v)" : "\(v)" }
        let text = "date: \(days[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon)]) "
            + "\(parts.tm_year + 1900) \(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT\r\n"
        return Array(text.utf8)
    }
}
