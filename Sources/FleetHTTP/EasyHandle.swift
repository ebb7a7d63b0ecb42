import CCurl
import CCurlShim
import FleetCore

/// One pooled libcurl easy handle, configured for a transfer and read back when it ends.
///
/// Handles are reused (after `curl_easy_reset`) so that a request costs no curl allocation; the
/// connections themselves live in the multi handle's cache, not here. Touched only by the I/O
/// thread that owns it.
final class EasyHandle {
    let raw: UnsafeMutableRawPointer
    private let errorBuffer: UnsafeMutablePointer<CChar>

    init?() {
        guard let h = curl_easy_init() else { return nil }
        raw = h
        errorBuffer = .allocate(capacity: fleet_curl_error_size())
        errorBuffer.initialize(to: 0)
    }

    deinit {
        curl_easy_cleanup(raw)
        errorBuffer.deallocate()
    }

    /// Sets every option for `transfer`; a failure names the option curl refused.
    func configure(for transfer: HTTPTransfer, connectTimeout: Double) -> HTTPError? {
        curl_easy_reset(raw)
        errorBuffer[0] = 0
        let request = transfer.request
        let me = Unmanaged.passUnretained(transfer).toOpaque()
        var failed: String?
        func check(_ code: CURLcode, _ what: String) {
            if code != CURLE_OK && failed == nil {
                failed = "\(what): \(String(cString: curl_easy_strerror(code)))"
            }
        }
        // Signals are useless (and unsafe) in a multi-threaded process; timeouts work without them.
        check(fleet_curl_easy_setopt_long(raw, CURLOPT_NOSIGNAL, 1), "NOSIGNAL")
        check(request.url.withCString { fleet_curl_easy_setopt_ptr(raw, CURLOPT_URL, UnsafeMutableRawPointer(mutating: $0)) },
              "URL \(request.url)")
        // Only plain HTTP(S): a URL from a server must never make us speak another protocol.
        check("http,https".withCString { fleet_curl_easy_setopt_ptr(raw, CURLOPT_PROTOCOLS_STR, UnsafeMutableRawPointer(mutating: $0)) },
              "PROTOCOLS_STR")
        // An explicit empty proxy: the bench talks to its target directly, and curl then skips
        // reading the *_proxy environment variables on every transfer.
        check("".withCString { fleet_curl_easy_setopt_ptr(raw, CURLOPT_PROXY, UnsafeMutableRawPointer(mutating: $0)) }, "PROXY")
        check(fleet_curl_easy_setopt_ptr(raw, CURLOPT_PRIVATE, me), "PRIVATE")
        check(fleet_curl_easy_setopt_ptr(raw, CURLOPT_ERRORBUFFER, errorBuffer), "ERRORBUFFER")
        check(fleet_curl_easy_setopt_long(raw, CURLOPT_TIMEOUT_MS, Self.millis(request.timeout)), "TIMEOUT_MS")
        check(fleet_curl_easy_setopt_long(raw, CURLOPT_CONNECTTIMEOUT_MS, Self.millis(connectTimeout)), "CONNECTTIMEOUT_MS")
        check(fleet_curl_easy_setopt_write_function(raw, CURLOPT_WRITEFUNCTION) { data, size, n, user in
            Unmanaged<HTTPTransfer>.fromOpaque(user!).takeUnretainedValue().receiveBody(data!, count: size * n)
        }, "WRITEFUNCTION")
        check(fleet_curl_easy_setopt_ptr(raw, CURLOPT_WRITEDATA, me), "WRITEDATA")
        check(fleet_curl_easy_setopt_write_function(raw, CURLOPT_HEADERFUNCTION) { data, size, n, user in
            Unmanaged<HTTPTransfer>.fromOpaque(user!).takeUnretainedValue().receiveHeaderLine(data!, count: size * n)
        }, "HEADERFUNCTION")
        check(fleet_curl_easy_setopt_ptr(raw, CURLOPT_HEADERDATA, me), "HEADERDATA")

        let method = request.method.uppercased()
        let sendsBody = request.body != nil || method == "POST" || method == "PUT" || method == "PATCH"
        if sendsBody {
            // UPLOAD + INFILESIZE gives a Content-Length body read by our callback straight from
            // the shared bytes; CUSTOMREQUEST then names the real method (POST, PATCH, ...).
            check(fleet_curl_easy_setopt_long(raw, CURLOPT_UPLOAD, 1), "UPLOAD")
            check(fleet_curl_easy_setopt_off_t(raw, CURLOPT_INFILESIZE_LARGE, curl_off_t(request.body?.count ?? 0)),
                  "INFILESIZE_LARGE")
            check(fleet_curl_easy_setopt_read_function(raw) { buffer, size, n, user in
                let t = Unmanaged<HTTPTransfer>.fromOpaque(user!).takeUnretainedValue()
                return t.fillUpload(buffer!, capacity: size * n) ?? fleet_curl_readfunc_abort()
            }, "READFUNCTION")
            check(fleet_curl_easy_setopt_ptr(raw, CURLOPT_READDATA, me), "READDATA")
            if method != "PUT" {
                check(method.withCString { fleet_curl_easy_setopt_ptr(raw, CURLOPT_CUSTOMREQUEST, UnsafeMutableRawPointer(mutating: $0)) },
                      "CUSTOMREQUEST")
            }
        } else if method == "HEAD" {
            check(fleet_curl_easy_setopt_long(raw, CURLOPT_NOBODY, 1), "NOBODY")
        } else if method != "GET" {
            check(method.withCString { fleet_curl_easy_setopt_ptr(raw, CURLOPT_CUSTOMREQUEST, UnsafeMutableRawPointer(mutating: $0)) },
                  "CUSTOMREQUEST")
        }

        var list: UnsafeMutablePointer<curl_slist>?
        for header in request.headers {
            list = "\(header.name): \(header.value)".withCString { curl_slist_append(list, $0) } ?? list
        }
        if sendsBody {
            // An empty Expect header stops curl from waiting for `100 Continue` before uploading.
            list = curl_slist_append(list, "Expect:") ?? list
        }
        transfer.headerList = list
        if let list {
            check(fleet_curl_easy_setopt_ptr(raw, CURLOPT_HTTPHEADER, UnsafeMutableRawPointer(list)), "HTTPHEADER")
        }
        return failed.map { HTTPError(kind: .other, message: "cannot configure request: \($0)") }
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
