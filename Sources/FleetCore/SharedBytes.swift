#if canImport(Glibc)
import Glibc
#endif

/// An immutable block of bytes shared read-only by every virtual user.
///
/// Audio clips are loaded once and handed to thousands of concurrent uploads; each upload refers
/// to a slice of one `SharedBytes` instead of holding its own copy (k6's users complain of one
/// copy per VU). The memory is either malloc'ed or a private read-only mapping of a file, and is
/// released when the last reference goes. Immutability after init is what makes it Sendable.
// @unchecked: only `let`s, and the bytes behind `base` are never written after init (raw pointers are not Sendable).
public final class SharedBytes: @unchecked Sendable {
    public let base: UnsafeRawPointer?
    public let count: Int
    private let release: @Sendable (UnsafeRawPointer?, Int) -> Void

    /// Copies `bytes` once into storage that never changes again.
    public init<C: Collection>(_ bytes: C) where C.Element == UInt8 {
        let n = bytes.count
        let p = n > 0 ? malloc(n)! : nil
        if let p {
            // One memcpy from contiguous storage (arrays, slices, Data): the byte loop went
            // through the generic iterator's witness, ~400 instructions a byte, and every JSON
            // request body is copied here (bench/instructions.sh, ninth pass).
            let copied = bytes.withContiguousStorageIfAvailable { src -> Bool in
                if let s = src.baseAddress { p.copyMemory(from: s, byteCount: n) }
                return true
            } ?? false
            if !copied {
                var i = 0
                for b in bytes { p.storeBytes(of: b, toByteOffset: i, as: UInt8.self); i += 1 }
            }
        }
        base = p.map { UnsafeRawPointer($0) }
        count = n
        release = { p, _ in free(UnsafeMutableRawPointer(mutating: p)) }
    }

    /// Maps a whole file read-only; pages are shared with the page cache, not copied.
    ///
    /// The pages are read in and mapped now (`MAP_POPULATE`): every caller reads the whole file
    /// (a decode, a digest, uploads), and a corpus clip's first reader is an upload on an I/O
    /// thread, where a fault that has to go to the disk stalls every user of that thread. With the
    /// corpus out of the page cache, a 16-user run took 37 major faults after start-up without
    /// this and none with it; two 200,000-user runs stalled 60 and 270 ms at the moment of the
    /// same first uploads, consistent with such faults (bench/RESULTS.md, sixteenth pass).
    public init(mappingFile path: String) throws {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { throw SharedBytesError.cannotOpen(path: path, errno: errno) }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw SharedBytesError.cannotOpen(path: path, errno: errno) }
        let n = Int(st.st_size)
        if n == 0 {
            base = nil; count = 0; release = { _, _ in }
            return
        }
        guard let m = mmap(nil, n, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0), m != MAP_FAILED else {
            throw SharedBytesError.cannotMap(path: path, errno: errno)
        }
        base = UnsafeRawPointer(m)
        count = n
        release = { p, n in munmap(UnsafeMutableRawPointer(mutating: p), n) }
    }

    deinit { release(base, count) }

    /// The bytes as a buffer; valid only inside `body`, and never to be written through.
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeRawBufferPointer(start: base, count: count))
    }

    /// A copy of a range, for the few places (tests, small bodies) that need an array.
    public func copyBytes(_ range: Range<Int>? = nil) -> [UInt8] {
        let r = range ?? 0..<count
        return withUnsafeBytes { Array($0[r]) }
    }
}

public enum SharedBytesError: Error, CustomStringConvertible {
    case cannotOpen(path: String, errno: Int32)
    case cannotMap(path: String, errno: Int32)

    public var description: String {
        switch self {
        case let .cannotOpen(path, e): return "\(path): cannot open (\(String(cString: strerror(e))))"
        case let .cannotMap(path, e): return "\(path): cannot map (\(String(cString: strerror(e))))"
        }
    }
}
