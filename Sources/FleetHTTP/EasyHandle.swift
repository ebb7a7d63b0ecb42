import CCurl
import CCurlShim
import FleetCore
import Foundation

/// One pooled libcurl easy handle, configured for a transfer and read back when it ends.
///
/// Handles are reused without `curl_easy_reset`: the options that never change (callbacks,
/// error buffer, no signals, no proxy, HTTP only) are set once here, and `configure` sets every
/// per-request option to a definite value each time. Resetting would also free curl's receive
/// buffer and per-handle caches, and re-allocating those on every request showed up as a
/// quarter of the engine's user time (malloc/free) in profiles. The connections themselves live
/// in the multi handle's cache, not here. Touched only by the I/O thread that owns it.
final class EasyHandle {
    let raw: UnsafeMutableRawPointer
    private let errorBuffer: UnsafeMutablePointer<CChar>
    /// The handle's last URL, parsed (`EngineLevers.parsedURLs`): curl copies it per transfer
    /// instead of parsing the string again; a new URL is parsed into it once.
    private var parsedURL: OpaquePointer?
    private var parsedURLString: String?
    /// The handle's last request sent its body through CURLOPT_POSTFIELDS (`inlines`).
    private var inlineBody = false

    /// Bodies up to this many bytes go out with the request head in one send (`inlines`): the
    /// API's JSON bodies. Clip uploads are larger and are read by the upload callback in
    /// `CURLOPT_UPLOAD_BUFFERSIZE` pieces.
    static let inlineBodyLimit = 16 << 10

    /// Whether `request`'s body of `count` bytes is sent through CURLOPT_POSTFIELDS: small, not
    /// empty (a bodiless POST keeps the upload path's `Content-Length: 0`), not cut on purpose
    /// mid-upload (`abortUploadAfterBytes` needs the callback), and the lever on.
    static func inlines(_ count: Int, _ request: HTTPRequest) -> Bool {
        count > 0 && count <= inlineBodyLimit && request.abortUploadAfterBytes == nil && EngineLevers.current.inlineBodies
    }

    /// `loop` opens and closes the sockets of this handle's connections (`EpollInterest`).
    init?(sourceAddress: String? = nil, loop: IOLoop) {
        guard let h = curl_easy_init() else { return nil }
        raw = h
        errorBuffer = .allocate(capacity: fleet_curl_error_size())
        errorBuffer.initialize(to: 0)
        let fixed: [CURLcode] = [
            // Signals are useless (and unsafe) in a multi-threaded process; timeouts work without.
            fleet_curl_easy_setopt_long(h, CURLOPT_NOSIGNAL, 1),
            // Only plain HTTP(S): a URL from a server must never make us speak another protocol.
            "http,https".withCString { fleet_curl_easy_setopt_ptr(h, CURLOPT_PROTOCOLS_STR, UnsafeMutableRawPointer(mutating: $0)) },
            // An explicit empty proxy: the bench talks to its target directly, and curl then skips
            // reading the *_proxy environment variables on every transfer. An explicit empty
            // no-proxy list likewise skips its getenv("no_proxy") and getenv("NO_PROXY"), which
            // curl 7.88 otherwise makes for every transfer (0.4 % of the daily quest's profile).
            "".withCString { fleet_curl_easy_setopt_ptr(h, CURLOPT_PROXY, UnsafeMutableRawPointer(mutating: $0)) },
            "".withCString { fleet_curl_easy_setopt_ptr(h, CURLOPT_NOPROXY, UnsafeMutableRawPointer(mutating: $0)) },
            // Connection sockets are opened (as curl would: socket(family, type, protocol), and
            // close-on-exec, so a child the bench starts holds none of its connections open) and
            // closed by the loop, whose epoll bookkeeping may keep a connection's socket in its
            // set between requests (`EpollInterest`); curl's other sockets (the threaded
            // resolver's socket pair) are not, and leave the set when curl stops watching them.
            fleet_curl_easy_setopt_ptr(h, CURLOPT_OPENSOCKETDATA, Unmanaged.passUnretained(loop).toOpaque()),
            fleet_curl_easy_setopt_opensocket_function(h) { loop, _, address in
                guard let a = address?.pointee else { return -1 }
                let socket = Glibc.socket(a.family, a.socktype | Int32(SOCK_CLOEXEC.rawValue), a.protocol)
                if socket >= 0 { Unmanaged<IOLoop>.fromOpaque(loop!).takeUnretainedValue().interest.opened(socket) }
                return socket
            },
            fleet_curl_easy_setopt_ptr(h, CURLOPT_CLOSESOCKETDATA, Unmanaged.passUnretained(loop).toOpaque()),
            fleet_curl_easy_setopt_closesocket_function(h) { loop, socket in
                Unmanaged<IOLoop>.fromOpaque(loop!).takeUnretainedValue().interest.closing(socket)
                return close(socket)
            },
            fleet_curl_easy_setopt_ptr(h, CURLOPT_ERRORBUFFER, errorBuffer),
            // Ask for (and decode) every coding curl knows: an app's HTTP stack does, and a body
            // whose bytes are not what its `Content-Encoding` claims then fails as
            // `protocol_error` instead of passing its raw bytes on as if they were the body.
            "".withCString { fleet_curl_easy_setopt_ptr(h, CURLOPT_ACCEPT_ENCODING, UnsafeMutableRawPointer(mutating: $0)) },
            // libcurl's minimum upload buffer (default 64 KiB). Every sending upload holds one
            // (allocated when its body starts, freed when it ends) and copies the shared clip
            // through it; at 64 KiB, 10,000 uploads at once held 624 MB more than 10,000 GETs
            // (bench/upload-memory.sh). Loopback throughput does not need more than 16 KiB.
            fleet_curl_easy_setopt_long(h, CURLOPT_UPLOAD_BUFFERSIZE, 16 << 10),
            fleet_curl_easy_setopt_write_function(h, CURLOPT_WRITEFUNCTION) { data, size, n, user in
                Unmanaged<HTTPTransfer>.fromOpaque(user!).takeUnretainedValue().receiveBody(data!, count: size * n)
            },
            fleet_curl_easy_setopt_write_function(h, CURLOPT_HEADERFUNCTION) { data, size, n, user in
                Unmanaged<HTTPTransfer>.fromOpaque(user!).takeUnretainedValue().receiveHeaderLine(data!, count: size * n)
            },
            fleet_curl_easy_setopt_read_function(h) { buffer, size, n, user in
                let t = Unmanaged<HTTPTransfer>.fromOpaque(user!).takeUnretainedValue()
                return t.fillUpload(buffer!, capacity: size * n) ?? fleet_curl_readfunc_abort()
            },
            // curl resends a request whose reused connection died before any answer; it then
            // rewinds the body, which without this fails as "necessary data rewind wasn't possible".
            fleet_curl_easy_setopt_seek_function(h) { user, offset, origin in
                let t = Unmanaged<HTTPTransfer>.fromOpaque(user!).takeUnretainedValue()
                return t.seekUpload(to: Int(offset), origin: origin) ? Int32(CURL_SEEKFUNC_OK) : Int32(CURL_SEEKFUNC_CANTSEEK)
            },
        ]
        // `host!` makes curl bind to exactly this address, never resolve it as an interface name.
        let bind = sourceAddress.map { address in
            "host!\(address)".withCString { fleet_curl_easy_setopt_ptr(h, CURLOPT_INTERFACE, UnsafeMutableRawPointer(mutating: $0)) }
        } ?? CURLE_OK
        guard fixed.allSatisfy({ $0 == CURLE_OK }), bind == CURLE_OK else {
            curl_easy_cleanup(h)
            errorBuffer.deallocate()
            return nil
        }
    }

    deinit {
        curl_easy_cleanup(raw)
        if let parsedURL { curl_url_cleanup(parsedURL) }
        errorBuffer.deallocate()
    }

    /// Sets every per-request option for `transfer`; a failure names the option curl refused.
    func configure(for transfer: HTTPTransfer, connectTimeout: Double) -> HTTPError? {
        errorBuffer[0] = 0
        let request = transfer.request
        let me = Unmanaged.passUnretained(transfer).toOpaque()
        var failed: String?
        // The name is only formatted on failure: an interpolated string per option per request
        // showed up in the engine's profile.
        func check(_ code: CURLcode, _ what: @autoclosure () -> String) {
            if code != CURLE_OK && failed == nil {
                failed = "\(what()): \(String(cString: curl_easy_strerror(code)))"
            }
        }
        setURL(request.url, check)
        check(fleet_curl_easy_setopt_ptr(raw, CURLOPT_PRIVATE, me), "PRIVATE")
        check(fleet_curl_easy_setopt_ptr(raw, CURLOPT_WRITEDATA, me), "WRITEDATA")
        check(fleet_curl_easy_setopt_ptr(raw, CURLOPT_HEADERDATA, me), "HEADERDATA")
        check(fleet_curl_easy_setopt_ptr(raw, CURLOPT_READDATA, me), "READDATA")
        check(fleet_curl_easy_setopt_ptr(raw, CURLOPT_SEEKDATA, me), "SEEKDATA")
        check(fleet_curl_easy_setopt_long(raw, CURLOPT_TIMEOUT_MS, Self.millis(request.timeout)), "TIMEOUT_MS")
        check(fleet_curl_easy_setopt_long(raw, CURLOPT_CONNECTTIMEOUT_MS, Self.millis(connectTimeout)), "CONNECTTIMEOUT_MS")

        // Back to a plain GET first (clears POSTFIELDS, UPLOAD and NOBODY of the handle's last
        // request; POSTFIELDS first, as setting it, even to nil, makes the method POST).
        if inlineBody {
            check(fleet_curl_easy_setopt_ptr(raw, CURLOPT_POSTFIELDS, nil), "POSTFIELDS")
            inlineBody = false
        }
        check(fleet_curl_easy_setopt_long(raw, CURLOPT_HTTPGET, 1), "HTTPGET")
        let method = Self.upper(request.method)
        let sendsBody = request.body != nil || method == "POST" || method == "PUT" || method == "PATCH"
        var custom: String?
        var namesContentType = false
        if sendsBody, let body = request.body, let base = body.storage.base, Self.inlines(body.count, request) {
            // A small body goes out in the request head's own send (curl 7.88 joins them below
            // 64 KiB): one `sendto` and one loopback segment instead of two. POSTFIELDS points
            // into the shared bytes, which the transfer keeps alive until it completes.
            check(fleet_curl_easy_setopt_off_t(raw, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count)), "POSTFIELDSIZE_LARGE")
            check(fleet_curl_easy_setopt_ptr(raw, CURLOPT_POSTFIELDS, UnsafeMutableRawPointer(mutating: base + body.range.lowerBound)),
                  "POSTFIELDS")
            inlineBody = true
            if method != "POST" { custom = method }
            namesContentType = request.headers.contains { $0.name.caseInsensitiveEquals("Content-Type") }
        } else if sendsBody {
            // UPLOAD + INFILESIZE gives a Content-Length body read by our callback straight from
            // the shared bytes; CUSTOMREQUEST then names the real method (POST, PATCH, ...).
            check(fleet_curl_easy_setopt_long(raw, CURLOPT_UPLOAD, 1), "UPLOAD")
            check(fleet_curl_easy_setopt_off_t(raw, CURLOPT_INFILESIZE_LARGE, curl_off_t(request.body?.count ?? 0)),
                  "INFILESIZE_LARGE")
            if method != "PUT" { custom = method }
        } else if method == "HEAD" {
            check(fleet_curl_easy_setopt_long(raw, CURLOPT_NOBODY, 1), "NOBODY")
        } else if method != "GET" {
            custom = method
        }
        if let custom {
            check(custom.withCString { fleet_curl_easy_setopt_ptr(raw, CURLOPT_CUSTOMREQUEST, UnsafeMutableRawPointer(mutating: $0)) },
                  "CUSTOMREQUEST")
        } else {
            check(fleet_curl_easy_setopt_ptr(raw, CURLOPT_CUSTOMREQUEST, nil), "CUSTOMREQUEST")
        }

        var list: UnsafeMutablePointer<curl_slist>?
        for header in request.headers {
            list = "\(header.name): \(header.value)".withCString { curl_slist_append(list, $0) } ?? list
        }
        if sendsBody {
            // An empty Expect header stops curl from waiting for `100 Continue` before uploading.
            list = curl_slist_append(list, "Expect:") ?? list
        }
        if inlineBody && !namesContentType {
            // curl adds a form Content-Type to a POSTFIELDS body; the request named none.
            list = curl_slist_append(list, "Content-Type:") ?? list
        }
        transfer.headerList = list
        check(fleet_curl_easy_setopt_ptr(raw, CURLOPT_HTTPHEADER, list.map { UnsafeMutableRawPointer($0) }), "HTTPHEADER")
        return failed.map { HTTPError(kind: .other, message: "cannot configure request: \($0)") }
    }

    /// Sets the request's URL: through the handle's parsed URL when that lever is on and curl
    /// accepts the URL, else as a string (a URL curl cannot parse then fails as it always did).
    private func setURL(_ url: String, _ check: (CURLcode, @autoclosure () -> String) -> Void) {
        if EngineLevers.current.parsedURLs {
            if url == parsedURLString { return }  // still set on the handle from its last transfer
            if parsedURL == nil { parsedURL = curl_url() }
            if let uh = parsedURL,
               url.withCString({ curl_url_set(uh, CURLUPART_URL, $0, UInt32(1 << 3) /* CURLU_NON_SUPPORT_SCHEME: unsupported schemes fail later, as with a string */) }) == CURLUE_OK {
                parsedURLString = url
                check(fleet_curl_easy_setopt_ptr(raw, CURLOPT_CURLU, UnsafeMutableRawPointer(uh)), "CURLU \(url)")
                return
            }
            parsedURLString = nil
            check(fleet_curl_easy_setopt_ptr(raw, CURLOPT_CURLU, nil), "CURLU")
        }
        check(url.withCString { fleet_curl_easy_setopt_ptr(raw, CURLOPT_URL, UnsafeMutableRawPointer(mutating: $0)) }, "URL \(url)")
    }

    /// `method` in upper case, without allocating for the usual, already upper-case methods.
    private static func upper(_ method: String) -> String {
        method.utf8.allSatisfy({ $0 < 0x61 || $0 > 0x7a }) ? method : method.uppercased()
    }

    /// The HTTP status of the last response (0 when none arrived).
    func status() -> Int {
        var code = 0
        _ = fleet_curl_easy_getinfo_long(raw, CURLINFO_RESPONSE_CODE, &code)
        return code
    }

    /// The announced Content-Length of the response being received, or -1.
    func contentLength() -> Int {
        var n: curl_off_t = -1
        _ = fleet_curl_easy_getinfo_off_t(raw, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &n)
        return Int(n)
    }

    /// curl's cumulative phase times for the transfer, in microseconds.
    func timings() -> HTTPTimings {
        func micros(_ info: CURLINFO) -> Int64 {
            var v: curl_off_t = 0
            _ = fleet_curl_easy_getinfo_off_t(raw, info, &v)
            return Int64(v)
        }
        return HTTPTimings(dnsMicros: micros(CURLINFO_NAMELOOKUP_TIME_T),
                           connectMicros: micros(CURLINFO_CONNECT_TIME_T),
                           tlsMicros: micros(CURLINFO_APPCONNECT_TIME_T),
                           firstByteMicros: micros(CURLINFO_STARTTRANSFER_TIME_T),
                           totalMicros: micros(CURLINFO_TOTAL_TIME_T))
    }

    /// curl's detailed message for the failed transfer, or its generic text for `code`.
    func errorMessage(_ code: CURLcode) -> String {
        errorBuffer[0] != 0 ? String(cString: errorBuffer) : String(cString: curl_easy_strerror(code))
    }

    private static func millis(_ seconds: Double) -> Int {
        seconds.isFinite && seconds > 0 ? max(1, Int((seconds * 1000).rounded(.up))) : 0
    }
}
