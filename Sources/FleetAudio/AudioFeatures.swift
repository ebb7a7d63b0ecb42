/// Loudness, clipping and speech-activity measures of a decoded clip (from its mono mix).
public struct AudioFeatures: Sendable, Codable, Equatable {
    public var durationMs: Int
    public var sampleRate: Int
    public var channels: Int
    /// RMS level of the whole clip in dB relative to full scale; −120 for digital zero.
    public var rmsDbfs: Double
    /// Largest absolute sample (lossy codecs may give slightly more than 1).
    public var peak: Double
    /// Share of samples at or beyond `AudioAnalysis.Thresholds.clipLevel`.
    public var clippedFraction: Double
    /// Share of 20 ms frames whose RMS is above `AudioAnalysis.Thresholds.speechFrameDbfs`.
    public var activeFraction: Double

    public init(durationMs: Int, sampleRate: Int, channels: Int, rmsDbfs: Double, peak: Double,
                clippedFraction: Double, activeFraction: Double) {
        self.durationMs = durationMs
        self.sampleRate = sampleRate
        self.channels = channels
        self.rmsDbfs = rmsDbfs
        self.peak = peak
        self.clippedFraction = clippedFraction
        self.activeFraction = activeFraction
    }
}

extension AudioAnalysis {
    /// Measures a decoded clip in one pass over its mono samples.
    public static func features(of audio: DecodedAudio) -> AudioFeatures {
        audio.mono.withUnsafeBufferPointer { measure($0, audio) }
    }

    // Over a raw buffer: the per-sample loop is the cost of assessing, and debug builds (tests)
    // otherwise pay for bounds checks on every sample.
    private static func measure(_ samples: UnsafeBufferPointer<Float>, _ audio: DecodedAudio) -> AudioFeatures {
        let frameLength = max(1, audio.sampleRate / 50)  // 20 ms
        let clip = Float(Thresholds.clipLevel)
        let activeEnergy = pow10(Thresholds.speechFrameDbfs / 10)  // mean square of the threshold
        var total = 0.0, peak: Float = 0
        var clipped = 0, frames = 0, active = 0
        var start = 0
        while start < samples.count {
            let end = min(samples.count, start + frameLength)
            var energy = 0.0
            for i in start..<end {
                let s = samples[i]
                let a = abs(s)
                if a > peak { peak = a }
                if a >= clip { clipped += 1 }
                energy += Double(s) * Double(s)
            }
            total += energy
            // A ragged final frame shorter than 10 ms says too little to count either way.
            if end - start >= frameLength / 2 {
                frames += 1
                if energy / Double(end - start) > activeEnergy { active += 1 }
            }
            start = end
        }
        let n = Double(max(1, samples.count))
        let meanSquare = total / n
        return AudioFeatures(
            durationMs: audio.durationMs,
            sampleRate: audio.sampleRate,
            channels: audio.channels,
            rmsDbfs: meanSquare > 1e-12 ? 10 * log10(meanSquare) : -120,
            peak: Double(peak),
            clippedFraction: samples.isEmpty ? 0 : Double(clipped) / n,
            activeFraction: frames == 0 ? 0 : Double(active) / Double(frames))
    }

    private static func pow10(_ x: Double) -> Double { exp(x * log(10.0)) }
}

#if canImport(Glibc)
import Glibc
#endif
