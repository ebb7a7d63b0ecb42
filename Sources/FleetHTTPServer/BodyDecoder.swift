/// Collects a request body as its bytes arrive, for Content-Length or chunked framing.
///
/// It enforces the handler's body limit as early as it can: a declared length over the limit is
/// refused before any byte of it is read, and a chunked body the moment a chunk would cross it.
struct BodyDecoder {
    private enum State {
        case length(remaining: Int)
        case chunkSize
        case chunkData(remaining: Int)
        case chunkDataEnd
        case trailers(bytesSeen: Int)
        case done
    }

    /// Longest chunk-size line (size + extensions) we accept.
    static let maxChunkLineBytes = 4_096
    /// Longest trailer section we accept (trailers are read and dropped).
    static let maxTrailerBytes = 16_384

    private var state: State
    private let limit: Int
    private(set) var body: [UInt8] = []

    init(framing: BodyFraming, limit: Int) throws(HTTPParseError) {
        self.limit = limit
        switch framing {
        case .none:
            state = .done
        case .length(let n):
            guard n <= limit else { throw .payloadTooLarge(limit: limit) }
            body.reserveCapacity(n)
            state = n == 0 ? .done : .length(remaining: n)
        case .chunked:
            state = .chunkSize
        }
    }

    var isDone: Bool {
        if case .done = state { return true }
        return false
    }

    /// Hands the collected body over, leaving the decoder empty.
    mutating func takeBody() -> [UInt8] {
        let b = body
        body = []
        return b
    }

    /// Consumes what it can of `input`; returns how many bytes it used. Stops at the body's end,
    /// so bytes of a pipelined next request are left alone.
    mutating func feed(_ input: UnsafeRawBufferPointer) throws(HTTPParseError) -> Int {
        var used = 0
        while used < input.count {
            let rest = UnsafeRawBufferPointer(rebasing: input[used...])
            switch state {
            case .done:
                return used
            case .length(let remaining):
                let n = min(remaining, rest.count)
                body.append(contentsOf: UnsafeRawBufferPointer(rebasing: rest[0..<n]))
                used += n
                state = remaining == n ? .done : .length(remaining: remaining - n)
            case .chunkData(let remaining):
                let n = min(remaining, rest.count)
                body.append(contentsOf: UnsafeRawBufferPointer(rebasing: rest[0..<n]))
                used += n
                state = remaining == n ? .chunkDataEnd : .chunkData(remaining: remaining - n)
            case .chunkSize:
                guard let (lineLength, size) = try Self.parseChunkSizeLine(rest) else { return used }
                used += lineLength
                if size == 0 {
                    state = .trailers(bytesSeen: 0)
                } else {
                    guard size <= limit - body.count else { throw .payloadTooLarge(limit: limit) }
                    state = .chunkData(remaining: size)
                }
            case .chunkDataEnd:
                if rest[0] == 0x0A {
                    used += 1
                } else if rest[0] == 0x0D {
                    guard rest.count >= 2 else { return used }
                    guard rest[1] == 0x0A else { throw .badRequest("chunk data not followed by CRLF") }
                    used += 2
                } else {
                    throw .badRequest("chunk data longer than its declared size")
                }
                state = .chunkSize
            case .trailers(let seen):
                guard let lf = rest.firstIndex(of: 0x0A) else {
                    if seen + rest.count > Self.maxTrailerBytes { throw .badRequest("trailer section too large") }
                    return used
                }
                let lineLength = (lf > 0 && rest[lf - 1] == 0x0D) ? lf - 1 : lf
                used += lf + 1
                if lineLength == 0 {
                    state = .done
                } else {
                    guard seen + lf + 1 <= Self.maxTrailerBytes else { throw .badRequest("trailer section too large") }
                    state = .trailers(bytesSeen: seen + lf + 1)
                }
            }
        }
        return used
    }

    /// Parses `1a;name=value\r\n`; nil when the line has not fully arrived yet.
    private static func parseChunkSizeLine(_ bytes: UnsafeRawBufferPointer) throws(HTTPParseError)
        -> (lineLength: Int, size: Int)? {
        guard let lf = bytes.firstIndex(of: 0x0A) else {
            if bytes.count > maxChunkLineBytes { throw .badRequest("chunk size line too long") }
            return nil
        }
        guard lf < maxChunkLineBytes else { throw .badRequest("chunk size line too long") }
        var end = lf
        if end > 0 && bytes[end - 1] == 0x0D { end -= 1 }
        var size = 0
        var digits = 0
        var i = 0
        while i < end, let v = RequestTarget.hexValue(bytes[i]) {
            size = size << 4 | Int(v)
            digits += 1
            i += 1
            guard digits <= 15 else { throw .badRequest("chunk size too large") }
        }
        guard digits > 0 else { throw .badRequest("malformed chunk size (expected hex digits)") }
        while i < end && (bytes[i] == 0x20 || bytes[i] == 0x09) { i += 1 }
        if i < end {
            guard bytes[i] == UInt8(ascii: ";") else { throw .badRequest("malformed chunk size line") }
            // Chunk extensions are allowed and ignored, but must not smuggle control bytes.
            for b in bytes[i..<end] where b < 0x20 && b != 0x09 {
                throw .badRequest("control character in a chunk extension")
            }
        }
        return (lf + 1, size)
    }
}
