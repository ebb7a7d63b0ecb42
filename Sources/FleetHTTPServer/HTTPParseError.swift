/// A request the server refuses before it reaches the handler, with the status and the JSON
/// error envelope's code and message.
struct HTTPParseError: Error, Equatable {
    let status: Int
    let code: String
    let message: String

    static func badRequest(_ message: String) -> HTTPParseError {
        HTTPParseError(status: 400, code: "invalid_request", message: message)
    }

    static func headerTooLarge(limit: Int) -> HTTPParseError {
        HTTPParseError(status: 431, code: "header_too_large",
                       message: "request head is larger than \(limit) bytes")
    }

    static func payloadTooLarge(limit: Int) -> HTTPParseError {
        HTTPParseError(status: 413, code: "payload_too_large",
                       message: "request body is larger than \(limit) bytes")
    }

    static func notImplemented(_ message: String) -> HTTPParseError {
        HTTPParseError(status: 501, code: "not_implemented", message: message)
    }

    static let versionNotSupported = HTTPParseError(
        status: 505, code: "http_version_not_supported", message: "only HTTP/1.0 and HTTP/1.1 are served")

    /// The response the server sends for this error: the API's error envelope, never retryable
    /// (repeating a malformed request gives the same answer).
    var response: ServerResponse {
        ServerResponse.json(status, ErrorEnvelope.encode(code: code, message: message, retryable: false))
    }
}

/// Builds `{"error":{"code":…,"message":…,"retryable":…}}` without Foundation.
enum ErrorEnvelope {
    static func encode(code: String, message: String, retryable: Bool) -> [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(64 + code.utf8.count + message.utf8.count)
        out.append(contentsOf: #"{"error":{"code":"#.utf8)
        appendJSONString(code, to: &out)
        out.append(contentsOf: #","message":"#.utf8)
        appendJSONString(message, to: &out)
        out.append(contentsOf: (retryable ? #","retryable":true}}"# : #","retryable":false}}"#).utf8)
        return out
    }

    /// Appends `s` as a JSON string literal, escaping quotes, backslashes and control characters.
    static func appendJSONString(_ s: String, to out: inout [UInt8]) {
        let hex: [UInt8] = Array("0123456789abcdef".utf8)
        out.append(0x22)
        for byte in s.utf8 {
            switch byte {
            case 0x22: out.append(contentsOf: [0x5C, 0x22])
            case 0x5C: out.append(contentsOf: [0x5C, 0x5C])
            case 0x0A: out.append(contentsOf: [0x5C, 0x6E])
            case 0x0D: out.append(contentsOf: [0x5C, 0x72])
            case 0x09: out.append(contentsOf: [0x5C, 0x74])
            case 0..<0x20:
                out.append(contentsOf: [0x5C, 0x75, 0x30, 0x30, hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
            default: out.append(byte)
            }
        }
        out.append(0x22)
    }
}
