import FleetAudio
@testable import FleetCorpus
import FleetCore
import Foundation
import XCTest

/// The corpus check remembered between runs: unchanged clips come from the cache with the verdict
/// the full check gave; a changed clip (size or mtime) or manifest is checked again.
final class CorpusCheckCacheTests: XCTestCase {
    func testUnchangedClipsAreRememberedAndChangesAreCheckedAgain() throws {
        // Three clips of the committed corpus, copied by the manifest alone (no full check here).
        let all = try Corpus.manifest(directory: CorpusTests.corpusDirectory)
        let infos = [all.first { $0.clipClass == .speech && $0.format == "flac" }!,
                     all.first { $0.clipClass == .speech && $0.format == "opus" }!,
                     all.first { $0.clipClass == .silence }!]
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fleet-cache-\(UUID().uuidString)")
        for info in infos {
            let target = dir.appendingPathComponent(info.file)
            try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: CorpusTests.corpusDirectory + "/" + info.file, toPath: target.path)
        }
        try CorpusCopies.writeManifest(infos, to: dir)
        defer { try? FileManager.default.removeItem(at: dir) }
        let cache = CorpusCheckCache(path: dir.appendingPathComponent("cache/check.json").path)

        let first = try Corpus.load(directory: dir.path, cache: cache)
        XCTAssertEqual(first.remembered, 0, "nothing is remembered before the first check")
        XCTAssertEqual(cache.load().count, 3)
        let second = try Corpus.load(directory: dir.path, cache: cache)
        XCTAssertEqual(second.remembered, 3)
        XCTAssertEqual(second.clips.map(\.verdict), first.clips.map(\.verdict))
        XCTAssertEqual(second.clips.map(\.sha256), infos.map(\.sha256))

        // A new modification time: that clip alone is checked again.
        let touched = dir.appendingPathComponent(infos[1].file).path
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -3600)], ofItemAtPath: touched)
        XCTAssertEqual(try Corpus.load(directory: dir.path, cache: cache).remembered, 2)
        XCTAssertEqual(try Corpus.load(directory: dir.path, cache: cache).remembered, 3)

        // A damaged clip (its mtime moves with the write) fails the full check and leaves the cache.
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: touched)))
        bytes[bytes.count / 2] ^= 0xFF
        try Data(bytes).write(to: URL(fileURLWithPath: touched))
        XCTAssertThrowsError(try Corpus.load(directory: dir.path, cache: cache)) { error in
            XCTAssertEqual((error as? CorpusError)?.badFiles, [infos[1].file])
        }
        XCTAssertNil(cache.load()[infos[1].file])

        // Any change of the manifest re-checks every clip.
        try FileManager.default.removeItem(atPath: touched)
        try FileManager.default.copyItem(atPath: CorpusTests.corpusDirectory + "/" + infos[1].file, toPath: touched)
        try CorpusCopies.writeManifest(infos.reversed(), to: dir)
        XCTAssertEqual(try Corpus.load(directory: dir.path, cache: cache).remembered, 0)
    }

    /// A clip's stamp is its size and the kernel's modification time to the nanosecond: a
    /// rewrite that lands in the same microsecond with the same size still reads as a change.
    func testAStampSeesTheSizeAndANanosecondOfModificationTime() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("stamp-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("clip.opus").path
        try Data(repeating: 7, count: 1234).write(to: URL(fileURLWithPath: file))
        func setTime(_ nanos: Int) {
            var times = [timespec(tv_sec: 1_765_000_000, tv_nsec: nanos), timespec(tv_sec: 1_765_000_000, tv_nsec: nanos)]
            XCTAssertEqual(utimensat(AT_FDCWD, file, &times, 0), 0)
        }
        setTime(123_456_700)
        let first = try XCTUnwrap(CorpusCheckCache.stamp(file))
        XCTAssertEqual(first.size, 1234)
        XCTAssertEqual(first.mtimeNanos, 1_765_000_000_123_456_700)
        setTime(123_456_701)
        XCTAssertEqual(CorpusCheckCache.stamp(file)?.mtimeNanos, 1_765_000_000_123_456_701)
        XCTAssertNil(CorpusCheckCache.stamp(dir.appendingPathComponent("missing").path))
    }
}
