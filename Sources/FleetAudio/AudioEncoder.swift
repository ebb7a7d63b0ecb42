/// The encodings the bench writes with libsndfile (tests, synthetic clips).
public enum AudioEncoding: String, Sendable, Codable, CaseIterable {
    case wavPCM16, flac, oggVorbis, oggOpus, mp3

    public var container: AudioContainer {
        switch self {
        case .wavPCM16: return .wav
        case .flac: return .flac
        case .oggVorbis, .oggOpus: return .ogg
        case .mp3: return .mp3
        }
    }
}

/// Why samples could not be encoded.
public struct AudioEncodeError: Error, Sendable, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { "cannot encode audio: \(message)" }
}

/// Encodes samples to bytes in memory with libsndfile (no temporary files; see `SndfileWriter`).
public enum AudioEncoder {
    /// Encodes interleaved samples (`channels` per frame, nominally −1…1; louder ones are clipped
    /// by the encoder). Opus accepts only 8, 12, 16, 24 and 48 kHz.
    public static func encode(_ interleaved: [Float], sampleRate: Int, channels: Int,
                              as encoding: AudioEncoding) throws(AudioEncodeError) -> [UInt8] {
        guard channels > 0, sampleRate > 0, interleaved.count % channels == 0 else {
            throw AudioEncodeError("\(interleaved.count) samples do not make whole frames of \(channels) channels at \(sampleRate) Hz")
        }
        guard SndfileWriter.supports(encoding, sampleRate: sampleRate, channels: channels) else {
            throw AudioEncodeError("\(encoding.rawValue) does not support \(channels) channels at \(sampleRate) Hz")
        }
        let writer = try SndfileWriter.open(encoding, sampleRate: sampleRate, channels: channels).get()
        writer.enableClipping()
        let frames = interleaved.count / channels
        let written = interleaved.withUnsafeBufferPointer { writer.writeFrames($0, frames: frames) }
        let (bytes, failed, message) = writer.finish()
        guard written == frames, !failed else {
            throw AudioEncodeError("wrote \(written) of \(frames) frames: \(message)")
        }
        return bytes
    }
}
