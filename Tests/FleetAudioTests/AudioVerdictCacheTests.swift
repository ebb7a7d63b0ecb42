import FleetAudio
import FleetCore
import FleetTestSupport
import Foundation
import Synchronization
import XCTest

final class AudioVerdictCacheTests: XCTestCase {
    func testRemembersByDigestAndTypeAndEvictsTheOldest() throws {
        let speech = try Synth.encode(Synth.speechLike(seconds: 2), as: .flac)
        let silence = try Synth.encode(Synth.silence(seconds: 2), as: .flac)
        let cache = AudioVerdictCache(capacity: 2)
        let a = cache.verdict(sha256: SHA256.hex(speech), declaredContentType: "audio/flac", bytes: speech)
        XCTAssertEqual(a.quality, .ok)
        XCTAssertEqual(cache.verdict(sha256: SHA256.hex(speech), declaredContentType: "audio/flac", bytes: speech), a)
        XCTAssertEqual(cache.counts.hits, 1)
        XCTAssertEqual(cache.counts.misses, 1)
        // The declared type is part of the key: the same bytes declared as Ogg are a mismatch.
        XCTAssertEqual(cache.verdict(sha256: SHA256.hex(speech), declaredContentType: "audio/ogg", bytes: speech).quality,
                       .format_mismatch)
        XCTAssertEqual(cache.verdict(sha256: SHA256.hex(silence), declaredContentType: "audio/flac", bytes: silence).quality,
                       .silence)
        XCTAssertEqual(cache.count, 2, "capacity 2: the first entry was evicted")
        _ = cache.verdict(sha256: SHA256.hex(speech), declaredContentType: "audio/flac", bytes: speech)
        XCTAssertEqual(cache.counts.misses, 4, "the evicted verdict is computed again")
    }

    /// Callers missing the same key at once decode it once: the others wait for that verdict.
    /// Eight threads are released together on a cold cache; a decode of 20 s of audio takes long
    /// enough that, without waiting, several of them decoded it (checked against the cache before:
    /// 8, 4 and 7 misses in three runs).
    func testConcurrentMissesOfOneKeyDecodeOnce() throws {
        let clip = try Synth.encode(Synth.speechLike(seconds: 20), as: .flac)
        let digest = SHA256.hex(clip)
        let cache = AudioVerdictCache()
        let threads = 8
        let go = DispatchSemaphore(value: 0), done = DispatchGroup()
        let results = Mutex<[AudioVerdict]>([])
        for _ in 0..<threads {
            done.enter()
            Thread.detachNewThread {
                go.wait()
                let v = cache.verdict(sha256: digest, declaredContentType: "audio/flac", bytes: clip)
                results.withLock { $0.append(v) }
                done.leave()
            }
        }
        for _ in 0..<threads { go.signal() }
        XCTAssertEqual(done.wait(timeout: .now() + 60), .success)
        let verdicts = results.withLock { $0 }
        XCTAssertEqual(verdicts.count, threads)
        XCTAssertEqual(verdicts.first?.quality, .ok)
        XCTAssertTrue(verdicts.allSatisfy { $0 == verdicts[0] })
        XCTAssertEqual(cache.counts.misses, 1, "one decode")
        XCTAssertEqual(cache.counts.hits, threads - 1, "the others waited for it")
    }
}
