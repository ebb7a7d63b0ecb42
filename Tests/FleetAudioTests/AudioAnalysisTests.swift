import FleetAudio
import FleetTestSupport
import XCTest

final class AudioAnalysisTests: XCTestCase {
    private func verdict(_ samples: [Float], rate: Int = 16_000, channels: Int = 1,
                         as encoding: AudioEncoding = .flac, declared: String = "audio/flac") throws -> AudioVerdict {
        AudioAnalysis.assess(bytes: try Synth.encode(samples, rate: rate, channels: channels, as: encoding),
                             declaredContentType: declared)
    }

    func testFeaturesOfAFullScaleSine() throws {
        let audio = try AudioDecoder.decode(try Synth.encode(Synth.sine(seconds: 2, amplitude: 0.999), as: .flac))
        let f = AudioAnalysis.features(of: audio)
        XCTAssertEqual(f.durationMs, 2000)
        XCTAssertEqual(f.rmsDbfs, -3.01, accuracy: 0.05, "a sine's RMS is its peak over √2")
        XCTAssertEqual(f.peak, 0.999, accuracy: 0.001)
        XCTAssertEqual(f.activeFraction, 1)
        XCTAssertGreaterThan(f.clippedFraction, 0.05, "a sine spends time near its crest")
    }

    func testSpeechLikeSignalIsOk() throws {
        let v = try verdict(Synth.speechLike(seconds: 3))
        XCTAssertEqual(v.quality, .ok, v.detail ?? "")
        XCTAssertEqual(v.quality.outcome, .assessed)
        XCTAssertEqual(v.features?.activeFraction ?? 0, 0.8, accuracy: 0.05)
        XCTAssertEqual(v.features?.clippedFraction, 0)
    }

    func testUnreadableBytesComeFirst() {
        let v = AudioAnalysis.assess(bytes: [], declaredContentType: "audio/flac")
        XCTAssertEqual(v.quality, .unreadable)
        XCTAssertNil(v.features)
        XCTAssertEqual(v.quality.outcome, .failed)
    }

    func testContainerMustMatchTheDeclaredType() throws {
        XCTAssertEqual(try verdict(Synth.speechLike(seconds: 2), as: .wavPCM16, declared: "audio/flac").quality, .format_mismatch)
        XCTAssertEqual(try verdict(Synth.speechLike(seconds: 2), as: .flac, declared: "audio/ogg").quality, .format_mismatch)
        XCTAssertEqual(try verdict(Synth.speechLike(seconds: 2), as: .flac, declared: "audio/mp4").quality, .format_mismatch)
        // Even a clip too short to judge is first a mismatch: the upload is wrong before its content is.
        XCTAssertEqual(try verdict(Synth.silence(seconds: 0.3), as: .wavPCM16, declared: "audio/mpeg").quality, .format_mismatch)
        XCTAssertEqual(try verdict(Synth.speechLike(seconds: 2), as: .oggOpus, declared: "audio/opus").quality, .ok)
        XCTAssertEqual(try verdict(Synth.speechLike(seconds: 2), as: .oggOpus, declared: "Audio/Ogg; codecs=opus").quality, .ok)
        XCTAssertEqual(try verdict(Synth.speechLike(seconds: 2), as: .wavPCM16, declared: "audio/x-wav").quality, .ok)
        XCTAssertEqual(try verdict(Synth.speechLike(seconds: 2), as: .mp3, declared: "audio/mpeg").quality, .ok)
        XCTAssertEqual(try verdict(Synth.speechLike(seconds: 2), as: .mp3, declared: "audio/flac").quality, .format_mismatch)
    }

    func testUnderOneSecondIsTooShortEvenWhenSilent() throws {
        XCTAssertEqual(try verdict(Synth.speechLike(seconds: 0.9)).quality, .too_short)
        XCTAssertEqual(try verdict(Synth.silence(seconds: 0.5)).quality, .too_short)
        XCTAssertEqual(try verdict(Synth.speechLike(seconds: 1.05)).quality, .ok)
    }

    func testDigitalAndNearSilence() throws {
        let digital = try verdict(Synth.silence(seconds: 3), as: .oggOpus, declared: "audio/ogg")
        XCTAssertEqual(digital.quality, .silence)
        XCTAssertEqual(digital.quality.outcome, .unreliable)
        XCTAssertEqual(try verdict(Synth.noise(seconds: 3, amplitude: 0.0005)).quality, .silence, "noise at about −70 dBFS")
    }

    func testQuietSignalIsTooQuiet() throws {
        // Room noise around −50 dBFS, or speech 35 dB down: there is signal, but no speech level.
        XCTAssertEqual(try verdict(Synth.noise(seconds: 3, amplitude: 0.005)).quality, .too_quiet)
        let faint = try verdict(Synth.speechLike(seconds: 3, gain: 0.018))
        XCTAssertEqual(faint.quality, .too_quiet, faint.detail ?? "")
    }

    func testClippedSpeech() throws {
        let v = try verdict(Synth.speechLike(seconds: 3, gain: 6))
        XCTAssertEqual(v.quality, .clipped)
        XCTAssertEqual(v.quality.outcome, .assessed, "clipped speech is still scored, with reason 'clipped'")
        XCTAssertGreaterThan(v.features?.clippedFraction ?? 0, AudioAnalysis.Thresholds.maxClippedFraction)
    }

    func testStereoAndHighRatesAreAccepted() throws {
        let l = Synth.speechLike(seconds: 2, rate: 44_100), r = Synth.speechLike(seconds: 2, rate: 44_100)
        let v = try verdict(Synth.stereo(l, r), rate: 44_100, channels: 2, as: .wavPCM16, declared: "audio/wav")
        XCTAssertEqual(v.quality, .ok, v.detail ?? "")
        XCTAssertEqual(v.features?.channels, 2)
        XCTAssertEqual(v.features?.sampleRate, 44_100)
        XCTAssertEqual(try verdict(Synth.speechLike(seconds: 2, rate: 48_000), rate: 48_000, as: .oggOpus, declared: "audio/ogg").quality, .ok)
    }

    func testAssessIsDeterministic() throws {
        let bytes = try Synth.encode(Synth.speechLike(seconds: 2), as: .oggVorbis)
        XCTAssertEqual(AudioAnalysis.assess(bytes: bytes, declaredContentType: "audio/ogg").quality, .ok)
        XCTAssertEqual(AudioAnalysis.assess(bytes: bytes, declaredContentType: "audio/ogg"),
                       AudioAnalysis.assess(bytes: bytes, declaredContentType: "audio/ogg"))
    }

    func testDeclaredContentTypes() {
        XCTAssertEqual(AudioContainer.declared(by: "audio/flac"), .flac)
        XCTAssertEqual(AudioContainer.declared(by: "audio/x-wav"), .wav)
        XCTAssertEqual(AudioContainer.declared(by: " audio/OGG ;codecs=opus"), .ogg)
        XCTAssertEqual(AudioContainer.declared(by: "audio/mpeg"), .mp3)
        XCTAssertNil(AudioContainer.declared(by: "video/mp4"))
    }
}
