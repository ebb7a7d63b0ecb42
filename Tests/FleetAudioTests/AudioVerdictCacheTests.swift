import FleetAudio
import FleetCore
import FleetTestSupport
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
}
