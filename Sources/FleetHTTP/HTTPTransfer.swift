import CCurl
import Dispatch
import FleetCore
import Synchronization

/// A handle on one request in flight; the only thing a caller can do with it is cancel it.
///
/// Cancelling is what a killed app does to its requests: the transfer is dropped wherever it is
/// (queued, connecting, half uploaded) and its completion runs once, with `.aborted`. Cancelling
/// after completion does nothing. Every transfer's completion runs exactly once.
///
/// `@unchecked Sendable`: the immutable request, queue and completion are set at init; the
/// `cancelled` flag is atomic; every other field is touched only by the one I/O thread that owns
/// the transfer (from the moment it takes it off its submission queue), including from libcurl's
/// callbacks, which run on that thread inside `curl_multi_perform`.
// @unchecked: `cancelled` is an Atomic; the other `var`s are confined to the owning I/O thread.
public final class HTTPTransfer: @unchecked Sendable {
    let request: HTTPRequest
    /// Where the completion runs; nil = on the I/O thread itself (`HTTPEngine.send`).
    let queue: DispatchQueue?
    let completion: @Sendable (Result<HTTPResponse, HTTPError>) -> Void
    private let loop: IOLoop
    private let cancelled = Atomic<Bool>(false)

    // MARK: I/O-thread state.
    /// The pooled easy handle while the transfer is in the multi handle.
    var easy: EasyHandle?
    /// The multi handle running it.
    var shard: MultiShard?
    /// Index in the loop's active list while running (for O(1) removal).
    var slot = -1
    /// Request header list handed to curl; freed when the transfer ends.
    var headerList: UnsafeMutablePointer<curl_slist>?
    /// Header lines of the current response block, as received.
    var rawHeaders: [UInt8] = []
    var headerBytes = 0
    var body: [UInt8] = []
    var uploadOffset = 0
    /// True while it counts against the loop's `maxConcurrentUploads` share.
    var holdsUploadSlot = false
    /// True while it waits in the loop's upload queue (cleared when cancelled there).
    var waitsForUploadSlot = false
    /// Set when the response outgrew a cap, so the resulting curl write error can be named.
    var overflow: HTTPError?
    let maxResponseBytes: Int

    init(request: HTTPRequest, queue: DispatchQueue?, loop: IOLoop, maxResponseBytes: Int,
         completion: @escaping @Sendable (Result<HTTPResponse, HTTPError>) -> Void) {
        self.request = request
        self.queue = queue
        self.loop = loop
        self.maxResponseBytes = maxResponseBytes
        self.completion = completion
    }

    /// Drops the transfer; its completion gets `.aborted` unless it already completed.
    public func cancel() {
        if !cancelled.exchange(true, ordering: .acquiringAndReleasing) {
            loop.requestCancel(self)
        }
    }

    /// A clip upload, subject to `maxConcurrentUploads` (small API bodies are not).
    var isClipUpload: Bool { (request.body?.count ?? 0) > HTTPEngine.queuedUploadMinBytes }

    var isCancelled: Bool { cancelled.load(ordering: .acquiring) }

    // MARK: Callback bodies (called on the I/O thread from libcurl).

    /// Appends received body bytes; returning less than `count` makes curl fail the transfer.
    func receiveBody(_ data: UnsafeRawPointer, count: Int) -> Int {
        if body.count + count > maxResponseBytes {
            overflow = HTTPError(kind: .bodyTooLarge, message: "response body larger than \(maxResponseBytes) bytes")
            return 0
        }
        if body.isEmpty, let easy {
            // Reserve once for the announced length so large bodies do not regrow repeatedly.
            let announced = easy.contentLength()
            if announced > 0 && announced <= maxResponseBytes { body.reserveCapacity(announced) }
        }
        body.append(contentsOf: UnsafeRawBufferPointer(start: data, count: count))
        return count
    }

    /// Keeps one header line (`Name: value\r\n`) raw; a new status line starts a new block (after
    /// `100 Continue`). Caps the total so a hostile server cannot grow memory without bound.
    func receiveHeaderLine(_ data: UnsafeRawPointer, count: Int) -> Int {
        headerBytes += count
        if headerBytes > Self.maxHeaderBytes {
            overflow = HTTPError(kind: .headerTooLarge, message: "response headers larger than \(Self.maxHeaderBytes) bytes")
            return 0
        }
        let line = UnsafeRawBufferPointer(start: data, count: count)
        if line.starts(with: Self.statusPrefix) {
            rawHeaders.removeAll(keepingCapacity: true)
            framing = Framing()
        } else {
            rawHeaders.append(contentsOf: line)
            if let problem = framing.add(line) {
                overflow = HTTPError(kind: .protocolError, message: problem)
                return 0
            }
        }
        return count
    }

    /// The framing headers of the current response: libcurl 7.88 takes the last of two differing
    /// `Content-Length`s, and a body read by the wrong one spoils the connection's next answer.
    var framing = Framing()

    struct Framing {
        var contentLength: [UInt8]?
        var chunked = false

        /// A description of the conflict this header line makes, or nil.
        mutating func add(_ line: UnsafeRawBufferPointer) -> String? {
            if let v = Self.value(of: Self.contentLength, in: line) {
                if let old = contentLength, old != v { return "conflicting Content-Length headers" }
                contentLength = v
            } else if Self.value(of: Self.transferEncoding, in: line) != nil {
                chunked = true
            }
            return contentLength != nil && chunked ? "both Content-Length and Transfer-Encoding" : nil
        }

        static let contentLength = Array("content-length:".utf8)
        static let transferEncoding = Array("transfer-encoding:".utf8)

        /// The trimmed value when the line is the header `name` (lowercase, with its colon).
        static func value(of name: [UInt8], in line: UnsafeRawBufferPointer) -> [UInt8]? {
            guard line.count > name.count else { return nil }
            // `name` holds lowercase letters, '-' and ':', each unchanged by `| 0x20`.
            for i in 0..<name.count where line[i] | 0x20 != name[i] { return nil }
            var v = Array(line[name.count...])
            while let c = v.last, c == 0x0d || c == 0x0a || c == 0x20 || c == 0x09 { v.removeLast() }
            while let c = v.first, c == 0x20 || c == 0x09 { v.removeFirst() }
            return v
        }
    }

    /// Copies the next upload bytes from the shared body into curl's buffer; `nil` means abort
    /// (the simulated network cut of `abortUploadAfterBytes`).
    func fillUpload(_ buffer: UnsafeMutableRawPointer, capacity: Int) -> Int? {
        guard let uploadBody = request.body else { return 0 }
        var end = uploadBody.range.count
        if let cut = request.abortUploadAfterBytes {
            if uploadOffset >= cut { return nil }
            end = min(end, cut)
        }
        let n = min(capacity, end - uploadOffset)
        if n <= 0 { return 0 }
        uploadBody.storage.withUnsafeBytes { all in
            buffer.copyMemory(from: all.baseAddress! + uploadBody.range.lowerBound + uploadOffset, byteCount: n)
        }
        uploadOffset += n
        loop.uploadPieces &+= 1
        return n
    }

    /// Moves the upload back (curl rewinds to resend the body on a fresh connection).
    func seekUpload(to offset: Int, origin: Int32) -> Bool {
        guard origin == SEEK_SET, let b = request.body, offset >= 0, offset <= b.count else { return false }
        uploadOffset = offset
        return true
    }

    /// 256 KiB of header lines is far beyond any real server; it sits below libcurl 7.88's own
    /// 300 KiB limit, which curl reports as a receive error (that would read as a reset here).
    static let maxHeaderBytes = 256 << 10
    private static let statusPrefix: [UInt8] = Array("HTTP/".utf8)
}
