import CCurl

/// Why a transfer produced no response, in the coarse kinds a load test counts separately.
public enum HTTPErrorKind: String, Sendable {
    /// The host name did not resolve.
    case dns
    /// The TCP connection was refused or could not be made.
    case connect
    /// The whole-transfer or connect timeout passed.
    case timeout
    /// The peer closed or reset the connection, or sent nothing.
    case reset
    /// TLS handshake or certificate failure.
    case tls
    /// Stopped on purpose: cancelled, an upload cut by `abortUploadAfterBytes`, or engine shutdown.
    case aborted
    /// The connection ended before the announced body did (a `Content-Length` longer than the body).
    case truncated
    /// The answer is not HTTP: no status line (an SSH banner, a TLS alert), conflicting lengths,
    /// a `Content-Encoding` whose bytes are not so encoded.
    case protocolError = "protocol_error"
    /// The response body outgrew the engine's `maxResponseBytes`.
    case bodyTooLarge = "body_too_large"
    /// The response header block (or one header line) outgrew what the engine keeps.
    case headerTooLarge = "header_too_large"
    /// Anything else (malformed URL, a request curl refused to configure).
    case other
}

/// A failed transfer: its kind, a human-readable message, and the timings curl had so far.
public struct HTTPError: Error, Sendable, CustomStringConvertible {
    public var kind: HTTPErrorKind
    public var message: String
    public var timings: HTTPTimings?

    public init(kind: HTTPErrorKind, message: String, timings: HTTPTimings? = nil) {
        self.kind = kind
        self.message = message
        self.timings = timings
    }

    public var description: String { "\(kind.rawValue): \(message)" }
}

extension HTTPErrorKind {
    /// Maps a libcurl result code to the kind a load test counts; the raw code stays here.
    init(curlCode code: CURLcode) {
        switch code {
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY:
            self = .dns
        case CURLE_COULDNT_CONNECT:
            self = .connect
        case CURLE_OPERATION_TIMEDOUT:
            self = .timeout
        case CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_GOT_NOTHING:
            // The connection died under us: the peer reset it or closed before answering.
            self = .reset
        case CURLE_PARTIAL_FILE:
            // Closed cleanly, but fewer body bytes than announced arrived.
            self = .truncated
        case CURLE_WEIRD_SERVER_REPLY, CURLE_UNSUPPORTED_PROTOCOL, CURLE_BAD_CONTENT_ENCODING, CURLE_HTTP2,
             CURLE_HTTP2_STREAM, CURLE_RANGE_ERROR:
            // CURLE_UNSUPPORTED_PROTOCOL is what curl says of an answer without a status line
            // ("HTTP/0.9 when not allowed"); URLs are checked before they reach curl.
            self = .protocolError
        case CURLE_FILESIZE_EXCEEDED:
            self = .bodyTooLarge
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM,
             CURLE_SSL_CIPHER, CURLE_SSL_CACERT_BADFILE, CURLE_SSL_ENGINE_NOTFOUND,
             CURLE_SSL_ENGINE_SETFAILED, CURLE_SSL_ENGINE_INITFAILED, CURLE_USE_SSL_FAILED,
             CURLE_SSL_SHUTDOWN_FAILED, CURLE_SSL_CRL_BADFILE, CURLE_SSL_ISSUER_ERROR,
             CURLE_SSL_PINNEDPUBKEYNOTMATCH, CURLE_SSL_INVALIDCERTSTATUS, CURLE_SSL_CLIENTCERT:
            self = .tls
        case CURLE_ABORTED_BY_CALLBACK:
            self = .aborted
        default:
            self = .other
        }
    }
}
