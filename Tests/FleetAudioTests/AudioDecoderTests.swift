import FleetAudio
import Foundation
import FleetTestSupport
import XCTest

final class AudioDecoderTests: XCTestCase {
    func testRoundTripsEveryEncodingWithItsContainerAndSubtype() throws {
        let cases: [(AudioEncoding, AudioContainer, String)] = [
            (.wavPCM16, .wav, "pcm16"), (.flac, .flac, "pcm16"), (.oggVorbis, .ogg, "vorbis"), (.oggOpus, .ogg, "opus"),
            (.mp3, .mp3, "mp3"),
        ]
        let source = Synth.sine(seconds: 2, amplitude: 0.5)
        for (encoding, container, subtype) in cases {
            let audio = try AudioDecoder.decode(try Synth.encode(source, as: encoding))
            XCTAssertEqual(audio.container, container, "\(encoding)")
            XCTAssertEqual(audio.subtype, subtype, "\(encoding)")
            XCTAssertEqual(audio.sampleRate, 16_000, "\(encoding)")
            XCTAssertEqual(audio.channels, 1, "\(encoding)")
            XCTAssertEqual(audio.frames, audio.mono.count)
            XCTAssertEqual(audio.durationMs, 2000, accuracy: 30, "\(encoding)")
            // The last 100 ms are left out: libsndfile's Opus writer ends on an overshooting packet.
            let peak = audio.mono[..<(audio.frames - 1600)].map { abs($0) }.max() ?? 0
            XCTAssertEqual(Double(peak), 0.5, accuracy: 0.06, "\(encoding)")
        }
    }

    func testLosslessDecodeGivesBackTheSamples() throws {
        let source = Synth.sine(hz: 300, seconds: 0.5, amplitude: 0.25)
        let audio = try AudioDecoder.decode(try Synth.encode(source, as: .flac))
        XCTAssertEqual(audio.frames, source.count)
        let worst = zip(audio.mono, source).map { abs($0 - $1) }.max() ?? 1
        XCTAssertLessThan(worst, 1.0 / 16_000, "16-bit quantisation error only")
    }

    func testStereoIsMixedDownToTheAverageOfItsChannels() throws {
        let left = [Float](repeating: 0.5, count: 48_000), right = [Float](repeating: 0, count: 48_000)
        let bytes = try Synth.encode(Synth.stereo(left, right), rate: 48_000, channels: 2, as: .wavPCM16)
        let audio = try AudioDecoder.decode(bytes)
        XCTAssertEqual(audio.channels, 2)
        XCTAssertEqual(audio.sampleRate, 48_000)
        XCTAssertEqual(audio.frames, 48_000)
        XCTAssertEqual(Double(audio.mono[1000]), 0.25, accuracy: 0.001)
    }

    func testEmptyBytesAreEmpty() {
        XCTAssertThrowsError(try AudioDecoder.decode([UInt8]())) { error in
            XCTAssertEqual((error as? AudioDecodeError)?.kind, .empty)
        }
    }

    func testGarbageIsUnrecognised() {
        let garbage = Array("this is not audio at all, just a sentence padded out to a few hundred bytes".utf8) + [UInt8](repeating: 7, count: 400)
        XCTAssertThrowsError(try AudioDecoder.decode(garbage)) { error in
            XCTAssertEqual((error as? AudioDecodeError)?.kind, .unrecognised, "\(error)")
        }
    }

    func testTruncationIsDetectedInEveryContainer() throws {
        let source = Synth.speechLike(seconds: 3)
        for encoding in AudioEncoding.allCases {
            let whole = try Synth.encode(source, as: encoding)
            let cut = Array(whole.prefix(whole.count * 6 / 10))
            XCTAssertThrowsError(try AudioDecoder.decode(cut), "\(encoding) cut at 60 %") { error in
                XCTAssertEqual((error as? AudioDecodeError)?.kind, .truncated, "\(encoding): \(error)")
            }
        }
    }

    func testForgedFLACLengthIsRefusedNotBelieved() throws {
        var flac = try Synth.encode(Synth.sine(seconds: 1), as: .flac)
        XCTAssertEqual(Array(flac[0..<4]), Array("fLaC".utf8))
        // STREAMINFO starts at byte 8; its 36-bit total-samples field ends in bytes 21...25.
        func forge(_ total: UInt64) -> [UInt8] {
            flac[21] = (flac[21] & 0xF0) | UInt8((total >> 32) & 0x0F)
            for i in 0..<4 { flac[22 + i] = UInt8((total >> (24 - 8 * UInt64(i))) & 0xFF) }
            return flac
        }
        XCTAssertThrowsError(try AudioDecoder.decode(forge(50_000_000))) { error in
            let e = error as? AudioDecodeError
            XCTAssertEqual(e?.kind, .truncated, "\(error)")
            XCTAssertTrue(e?.message.contains("50000000") == true, "\(error)")
        }
        XCTAssertThrowsError(try AudioDecoder.decode(forge(0xF_FFFF_FFFF))) { error in
            XCTAssertEqual((error as? AudioDecodeError)?.kind, .corrupt, "\(error)")
        }
    }

    func testOggCutAtAPageBoundaryIsTruncated() throws {
        // libsndfile decodes such a stream cleanly (only shorter); the missing end-of-stream page gives it away.
        let whole = try Synth.encode(Synth.speechLike(seconds: 6), as: .oggOpus)
        let capture = Array("OggS".utf8)
        let pageStarts = (0...(whole.count - 4)).filter { Array(whole[$0..<($0 + 4)]) == capture }
        XCTAssertGreaterThan(pageStarts.count, 3)
        let cut = Array(whole[..<pageStarts[pageStarts.count - 1]])
        XCTAssertThrowsError(try AudioDecoder.decode(cut)) { error in
            let e = error as? AudioDecodeError
            XCTAssertEqual(e?.kind, .truncated)
            XCTAssertTrue(e?.message.contains("end-of-stream") == true, "\(error)")
        }
    }

    func testFileDecodeMatchesMemoryDecodeAndNamesAMissingFile() throws {
        let bytes = try Synth.encode(Synth.sine(seconds: 1.5), as: .oggOpus)
        let path = NSTemporaryDirectory() + "fleet-audio-\(getpid()).opus"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let fromFile = try AudioDecoder.decode(path: path)
        let fromMemory = try AudioDecoder.decode(bytes)
        XCTAssertEqual(fromFile.frames, fromMemory.frames)
        XCTAssertEqual(fromFile.mono, fromMemory.mono)
        XCTAssertThrowsError(try AudioDecoder.decode(path: path + ".missing")) { error in
            let e = error as? AudioDecodeError
            XCTAssertEqual(e?.kind, .io)
            XCTAssertTrue(e?.message.contains(".missing") == true, "\(error)")
        }
    }

    func testConcurrentDecodesAgree() throws {
        let good = try Synth.encode(Synth.sine(seconds: 1), as: .flac)
        let bad = Array(repeating: UInt8(0x41), count: 300)
        let results = Box<[Bool]>([])
        DispatchQueue.concurrentPerform(iterations: 64) { i in
            if i % 2 == 0 {
                results.append((try? AudioDecoder.decode(good))?.frames == 16_000)
            } else {
                do { _ = try AudioDecoder.decode(bad); results.append(false) } catch { results.append((error as? AudioDecodeError)?.kind == .unrecognised) }
            }
        }
        XCTAssertEqual(results.value.count, 64)
        XCTAssertTrue(results.value.allSatisfy { $0 })
    }
}
