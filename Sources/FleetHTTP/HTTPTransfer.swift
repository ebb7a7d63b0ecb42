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
public final class HTTPTransfer: @unchecked Sendable {
    let request: HTTPRequest
    let queue: DispatchQueue
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

    init(request: HTTPRequest, queue: DispatchQueue, loop: IOLoop, maxResponseBytes: Int,
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
        } else {
            rawHeaders.append(contentsOf: line)
        }
        return count
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
        return n
    }

    /// 256 KiB of header lines is far beyond any real server; it sits below libcurl 7.88's own
    /// 300 KiB limit, which curl reports as a receive error (that would read as a reset here).
    static let maxHeaderBytes = 256 << 10
    private static let statusPrefix: [UInt8] = Array("HTTP/".utf8)
}
