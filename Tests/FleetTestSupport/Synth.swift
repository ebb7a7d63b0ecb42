import FleetAudio
import Foundation

/// Test signals made in code, so every expectation follows from how the signal was built.
public enum Synth {
    /// A sine at `amplitude` (peak), `seconds` long.
    public static func sine(hz: Double = 440, seconds: Double, rate: Int = 16_000, amplitude: Double = 0.5) -> [Float] {
        let n = Int(seconds * Double(rate))
        return (0..<n).map { Float(amplitude * sin(2 * .pi * hz * Double($0) / Double(rate))) }
    }

    /// Speech-like: a 220 Hz tone with harmonics, gated into 200 ms syllables and 50 ms gaps,
    /// so 80 % of frames are loud (about −15 dBFS) and 20 % are silent.
    public static func speechLike(seconds: Double, rate: Int = 16_000, gain: Double = 1) -> [Float] {
        let n = Int(seconds * Double(rate))
        return (0..<n).map { i in
            let t = Double(i) / Double(rate)
            let inSyllable = t.truncatingRemainder(dividingBy: 0.25) < 0.2
            guard inSyllable else { return 0 }
            let v = 0.3 * sin(2 * .pi * 220 * t) + 0.15 * sin(2 * .pi * 440 * t) + 0.08 * sin(2 * .pi * 880 * t)
            return Float(v * gain)
        }
    }

    /// A `hz` tone whose amplitude swings between 0.2 and 1 of `amplitude` at a 4 Hz syllable rate
    /// (computed in `Float`, as the stack tests' clips always were).
    public static func modulatedTone(hz: Float = 180, seconds: Double, rate: Int = 16_000, amplitude: Float) -> [Float] {
        let n = Int(seconds * Double(rate))
        return (0..<n).map { i -> Float in
            let t = Float(i) / Float(rate)
            return amplitude * (0.6 + 0.4 * sin(2 * .pi * 4 * t)) * sin(2 * .pi * hz * t)
        }
    }

    public static func silence(seconds: Double, rate: Int = 16_000) -> [Float] {
        [Float](repeating: 0, count: Int(seconds * Double(rate)))
    }

    /// Deterministic white noise with peak `amplitude`.
    public static func noise(seconds: Double, rate: Int = 16_000, amplitude: Double) -> [Float] {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        return (0..<Int(seconds * Double(rate))).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let u = Double(state >> 11) / Double(1 << 53)
            return Float((u * 2 - 1) * amplitude)
        }
    }

    /// Interleaves two channels of equal length.
    public static func stereo(_ left: [Float], _ right: [Float]) -> [Float] {
        var out: [Float] = []
        out.reserveCapacity(left.count * 2)
        for i in 0..<left.count { out.append(left[i]); out.append(right[i]) }
        return out
    }

    public static func encode(_ samples: [Float], rate: Int = 16_000, channels: Int = 1,
                       as encoding: AudioEncoding = .flac) throws -> [UInt8] {
        try AudioEncoder.encode(samples, sampleRate: rate, channels: channels, as: encoding)
    }
}
