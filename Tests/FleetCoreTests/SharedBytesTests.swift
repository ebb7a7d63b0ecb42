import XCTest
@testable import FleetCore
#if canImport(Glibc)
import Glibc
#endif

final class SharedBytesTests: XCTestCase {
    /// The copy takes one memcpy from contiguous sources and the element loop from others: both
    /// must give the same bytes, from the source's own start (a slice does not start at 0).
    func testCopiesEveryKindOfSourceByteForByte() {
        let all = (0..<300).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) }
        let slice = all[17..<211]
        let sources: [(String, SharedBytes, [UInt8])] = [
            ("array", SharedBytes(all), all),
            ("slice", SharedBytes(slice), Array(slice)),
            ("utf8 view", SharedBytes("héllo, wörld".utf8), Array("héllo, wörld".utf8)),
            ("lazy map (not contiguous)", SharedBytes(all.lazy.map { $0 ^ 0x5a }), all.map { $0 ^ 0x5a }),
            ("one byte", SharedBytes([UInt8(0xff)]), [0xff]),
        ]
        for (name, shared, expected) in sources {
            XCTAssertEqual(shared.count, expected.count, name)
            XCTAssertEqual(shared.copyBytes(), expected, name)
        }
    }

    func testEmptySourceHasNoStorage() {
        let empty = SharedBytes([UInt8]())
        XCTAssertEqual(empty.count, 0)
        XCTAssertNil(empty.base)
        XCTAssertEqual(empty.copyBytes(), [])
    }

    /// A mapping has every page in memory before anyone reads it, even when the file had left
    /// the page cache: a corpus clip's first upload must not fault on an I/O thread. The file is
    /// written beside the build, on the checkout's filesystem, and pushed out of the page cache
    /// first; without `MAP_POPULATE` mincore finds its pages absent until they are read.
    func testPopulatedMappingIsInMemoryBeforeItIsRead() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().path
        let path = root + "/.build/shared-bytes-populate-\(getpid()).bin"
        defer { unlink(path) }
        let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))
        let bytes = (0..<(64 * pageSize + 100)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 5) }
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        XCTAssertGreaterThanOrEqual(fd, 0, "cannot create \(path)")
        let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        XCTAssertEqual(written, bytes.count)
        XCTAssertEqual(fsync(fd), 0)  // clean pages can be dropped, dirty ones cannot
        XCTAssertEqual(posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED), 0)
        close(fd)

        let mapped = try SharedBytes(mappingFile: path)
        let pages = (mapped.count + pageSize - 1) / pageSize
        var resident = [UInt8](repeating: 0, count: pages)
        let rc = resident.withUnsafeMutableBufferPointer {
            mincore(UnsafeMutableRawPointer(mutating: mapped.base), mapped.count, $0.baseAddress)
        }
        XCTAssertEqual(rc, 0)
        XCTAssertEqual(resident.filter { $0 & 1 == 0 }.count, 0, "pages not in memory after mapping")
        XCTAssertEqual(mapped.copyBytes(), bytes)
    }
}
