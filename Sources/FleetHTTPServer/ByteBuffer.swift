#if canImport(Glibc)
import Glibc
#endif

/// A growable byte queue: bytes are appended at the back and consumed from the front.
///
/// Used for a connection's unparsed input and unsent output. It is a class so a connection can
/// hand out short-lived pointers into it without copy-on-write surprises; it belongs to exactly
/// one I/O thread and is never shared.
final class ByteBuffer {
    private var storage: UnsafeMutableRawPointer?
    private(set) var capacity = 0
    private var readIndex = 0
    private var writeIndex = 0

    init() {}

    deinit { free(storage) }

    var count: Int { writeIndex - readIndex }
    var isEmpty: Bool { writeIndex == readIndex }

    /// The unconsumed bytes; valid until the next mutation.
    var readable: UnsafeRawBufferPointer {
        guard let storage else { return UnsafeRawBufferPointer(start: nil, count: 0) }
        return UnsafeRawBufferPointer(start: storage + readIndex, count: count)
    }

    /// Drops `n` bytes from the front.
    func consume(_ n: Int) {
        precondition(n >= 0 && n <= count, "consume past the end of the buffer")
        readIndex += n
        if readIndex == writeIndex {
            readIndex = 0
            writeIndex = 0
        }
    }

    /// Empties the buffer; frees the storage when it grew large, so that an idle connection
    /// that once carried a big body does not keep that memory.
    func clear(keepingUpTo keep: Int = 65_536) {
        readIndex = 0
        writeIndex = 0
        if capacity > keep {
            free(storage)
            storage = nil
            capacity = 0
        }
    }

    /// Makes room for `n` more bytes at the back (compacting before growing).
    func reserve(_ n: Int) {
        if capacity - writeIndex >= n { return }
        if readIndex > 0 {
            let live = count
            if live > 0, let storage { memmove(storage, storage + readIndex, live) }
            readIndex = 0
            writeIndex = live
            if capacity - writeIndex >= n { return }
        }
        var newCapacity = max(capacity, 1024)
        while newCapacity - writeIndex < n { newCapacity *= 2 }
        guard let grown = realloc(storage, newCapacity) else {
            fatalError("out of memory growing a connection buffer to \(newCapacity) bytes")
        }
        storage = grown
        capacity = newCapacity
    }

    func append(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        reserve(bytes.count)
        (storage! + writeIndex).copyMemory(from: base, byteCount: bytes.count)
        writeIndex += bytes.count
    }

    func append(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { append($0) }
    }

    func append(_ byte: UInt8) {
        reserve(1)
        storage!.storeBytes(of: byte, toByteOffset: writeIndex, as: UInt8.self)
        writeIndex += 1
    }

    /// Appends a string's UTF-8 bytes.
    func append(_ string: String) {
        var s = string
        s.withUTF8 { append(UnsafeRawBufferPointer($0)) }
    }

    /// Appends a non-negative integer in decimal.
    func appendDecimal(_ value: Int) {
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes: room for any Int
        var v = UInt(max(value, 0))
        var i = 24
        withUnsafeMutableBytes(of: &digits) { p in
            repeat {
                i -= 1
                p[i] = UInt8(truncatingIfNeeded: v % 10) + 0x30
                v /= 10
            } while v > 0
            append(UnsafeRawBufferPointer(rebasing: p[i..<24]))
        }
    }

    /// Pointer to `n` writable bytes at the back; call `commit` with how many were filled.
    func writableSpace(_ n: Int) -> UnsafeMutableRawBufferPointer {
        reserve(n)
        return UnsafeMutableRawBufferPointer(start: storage! + writeIndex, count: capacity - writeIndex)
    }

    func commit(_ n: Int) {
        precondition(n >= 0 && writeIndex + n <= capacity, "commit past the buffer's capacity")
        writeIndex += n
    }
}

extension ByteBuffer {
    /// Appends a compile-time string without going through `String`.
    func appendStatic(_ s: StaticString) {
        append(UnsafeRawBufferPointer(start: s.utf8Start, count: s.utf8CodeUnitCount))
    }
}
