import FleetAudio
import XCTest

/// The encoder's refusals, which go through the `Sndfile` wrapper like everything else in libsndfile.
final class AudioEncoderTests: XCTestCase {
    private func message(_ body: () throws -> [UInt8]) -> String? {
        do {
            _ = try body()
            return nil
        } catch {
            return (error as? AudioEncodeError)?.message
        }
    }

    func testPartialFramesAreRefusedBeforeLibsndfile() {
        let m = message { try AudioEncoder.encode([0, 0, 0], sampleRate: 16_000, channels: 2, as: .wavPCM16) }
        XCTAssertEqual(m, "3 samples do not make whole frames of 2 channels at 16000 Hz")
    }

    func testAnUnsupportedLayoutNamesTheEncoding() {
        // WAV holds at most 1024 channels; libsndfile's format check refuses more.
        let m = message { try AudioEncoder.encode([Float](repeating: 0, count: 2000), sampleRate: 16_000, channels: 2000, as: .wavPCM16) }
        XCTAssertEqual(m, "wavPCM16 does not support 2000 channels at 16000 Hz")
    }

    func testOpusAtARateItLacksIsRefusedWithLibsndfilesReason() throws {
        // Opus runs at 8, 12, 16, 24 or 48 kHz; at 44.1 kHz libsndfile refuses the writer itself.
        let m = try XCTUnwrap(message { try AudioEncoder.encode([Float](repeating: 0, count: 441), sampleRate: 44_100, channels: 1, as: .oggOpus) })
        XCTAssertTrue(m.hasPrefix("libsndfile refused to open a oggOpus writer: "), m)
        XCTAssertTrue(m.contains("sample rates"), "the refusal carries libsndfile's own reason: \(m)")
    }

    func testEncodedBytesDecodeBack() throws {
        let samples = (0..<1600).map { Float(sin(Double($0) * 0.1)) * 0.5 }
        let bytes = try AudioEncoder.encode(samples, sampleRate: 16_000, channels: 1, as: .flac)
        let audio = try AudioDecoder.decode(bytes)
        XCTAssertEqual(audio.container, .flac)
        XCTAssertEqual(audio.frames, 1600)
    }
}
