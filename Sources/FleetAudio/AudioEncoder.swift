import CSndfile

/// The encodings the bench writes with libsndfile (tests, synthetic clips).
public enum AudioEncoding: String, Sendable, Codable, CaseIterable {
    case wavPCM16, flac, oggVorbis, oggOpus, mp3

    var sndfileFormat: Int32 {
        switch self {
        case .wavPCM16: return Int32(SF_FORMAT_WAV | SF_FORMAT_PCM_16)
        case .flac: return Int32(SF_FORMAT_FLAC | SF_FORMAT_PCM_16)
        case .oggVorbis: return Int32(SF_FORMAT_OGG | SF_FORMAT_VORBIS)
        case .oggOpus: return Int32(SF_FORMAT_OGG | SF_FORMAT_OPUS)
        case .mp3: return Int32(SF_FORMAT_MPEG | SF_FORMAT_MPEG_LAYER_III)
        }
    }

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

/// Encodes samples to bytes in memory with libsndfile (no temporary files).
public enum AudioEncoder {
    /// Encodes interleaved samples (`channels` per frame, nominally −1…1; louder ones are clipped
    /// by the encoder). Opus accepts only 8, 12, 16, 24 and 48 kHz.
    public static func encode(_ interleaved: [Float], sampleRate: Int, channels: Int,
                              as encoding: AudioEncoding) throws(AudioEncodeError) -> [UInt8] {
        guard channels > 0, sampleRate > 0, interleaved.count % channels == 0 else {
            throw AudioEncodeError("\(interleaved.count) samples do not make whole frames of \(channels) channels at \(sampleRate) Hz")
        }
        var info = SF_INFO()
        info.samplerate = Int32(sampleRate)
        info.channels = Int32(channels)
        info.format = encoding.sndfileFormat
        guard sf_format_check(&info) != 0 else {
            throw AudioEncodeError("\(encoding.rawValue) does not support \(channels) channels at \(sampleRate) Hz")
        }
        let writer = MemoryWriter()
        let user = Unmanaged.passUnretained(writer).toOpaque()
        var io = MemoryWriter.virtualIO
        let handle: OpaquePointer? = withExtendedLifetime(writer) { sf_open_virtual(&io, Int32(SFM_WRITE), &info, user) }
        guard let handle else {
            throw AudioEncodeError("libsndfile refused to open a \(encoding.rawValue) writer: \(String(cString: sf_strerror(nil)))")
        }
        // Clip instead of letting the encoder wrap integers around; it is what a recorder does.
        _ = sf_command(handle, Int32(SFC_SET_CLIPPING), nil, Int32(SF_TRUE))
        let frames = interleaved.count / channels
        let written = interleaved.withUnsafeBufferPointer { sf_writef_float(handle, $0.baseAddress, sf_count_t(frames)) }
        let error = sf_error(handle)
        let message = String(cString: sf_strerror(handle))
        withExtendedLifetime(writer) { _ = sf_close(handle) }
        guard written == frames, error == 0 else {
            throw AudioEncodeError("wrote \(written) of \(frames) frames: \(message)")
        }
        return writer.bytes
    }
}

/// A growable in-memory file for libsndfile's writers, which seek back to patch headers.
private final class MemoryWriter {
    var bytes: [UInt8] = []
    var position = 0

    static func from(_ user: UnsafeMutableRawPointer?) -> MemoryWriter {
        Unmanaged<MemoryWriter>.fromOpaque(user!).takeUnretainedValue()
    }

    static var virtualIO: SF_VIRTUAL_IO {
        SF_VIRTUAL_IO(
            get_filelen: { user in sf_count_t(MemoryWriter.from(user).bytes.count) },
            seek: { offset, whence, user in
                let w = MemoryWriter.from(user)
                let origin: Int
                switch whence {
                case SEEK_SET: origin = 0
                case SEEK_CUR: origin = w.position
                case SEEK_END: origin = w.bytes.count
                default: return -1
                }
                let target = origin + Int(offset)
                guard target >= 0 else { return -1 }
                w.position = target
                return sf_count_t(target)
            },
            read: { ptr, count, user in
                let w = MemoryWriter.from(user)
                let n = min(Int(count), max(0, w.bytes.count - w.position))
                guard n > 0, let ptr else { return 0 }
                w.bytes.withUnsafeBytes { ptr.copyMemory(from: $0.baseAddress! + w.position, byteCount: n) }
                w.position += n
                return sf_count_t(n)
            },
            write: { ptr, count, user in
                let w = MemoryWriter.from(user)
                let n = Int(count)
                guard n > 0, let ptr else { return 0 }
                if w.position > w.bytes.count { w.bytes.append(contentsOf: repeatElement(0, count: w.position - w.bytes.count)) }
                let source = UnsafeRawBufferPointer(start: ptr, count: n)
                let overlap = min(n, w.bytes.count - w.position)
                if overlap > 0 { w.bytes.replaceSubrange(w.position..<(w.position + overlap), with: source[0..<overlap]) }
                if overlap < n { w.bytes.append(contentsOf: source[overlap...]) }
                w.position += n
                return count
            },
            tell: { user in sf_count_t(MemoryWriter.from(user).position) })
    }
}

#if canImport(Glibc)
import Glibc
#endif
