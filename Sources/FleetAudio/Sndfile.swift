import CSndfile
import Foundation
import Synchronization

// The only file that touches libsndfile's C API: handles, virtual I/O callbacks and format codes
// stay here, and callers see Swift values, `AudioDecodeError` and `AudioEncodeError`.

/// Serialises opening (reading or writing): on failure libsndfile reports the error through a
/// process-wide variable (`sf_error(NULL)`, `sf_strerror(NULL)`), which concurrent failing opens
/// would otherwise overwrite mid-read.
private let sndfileOpenLock = Mutex(())

/// The caller's bytes as a seekable read-only stream for `sf_open_virtual`.
struct MemoryReader {
    let base: UnsafeRawPointer
    let count: Int
    var position: Int
}

/// One open libsndfile handle over a `MemoryReader`; closed exactly once by its owner.
final class SndfileHandle {
    private let info: SF_INFO
    private let sndfile: OpaquePointer

    var channels: Int { Int(info.channels) }
    var sampleRate: Int { Int(info.samplerate) }
    var container: AudioContainer { SndfileFormat.container(info.format) }
    var subtype: String { SndfileFormat.subtype(info.format) }
    /// The frames the header declares; nil when the length is unknown (libsndfile says `SF_COUNT_MAX`).
    var declaredFrames: Int? { info.frames == sf_count_t.max ? nil : Int(info.frames) }

    private init(sndfile: OpaquePointer, info: SF_INFO) {
        self.sndfile = sndfile
        self.info = info
    }

    static func open(reader: UnsafeMutablePointer<MemoryReader>) throws(AudioDecodeError) -> SndfileHandle {
        var io = SF_VIRTUAL_IO(
            get_filelen: { user in
                sf_count_t(user!.assumingMemoryBound(to: MemoryReader.self).pointee.count)
            },
            seek: { offset, whence, user in
                let r = user!.assumingMemoryBound(to: MemoryReader.self)
                let origin: Int
                switch whence {
                case SEEK_SET: origin = 0
                case SEEK_CUR: origin = r.pointee.position
                case SEEK_END: origin = r.pointee.count
                default: return -1
                }
                let target = origin + Int(offset)
                guard target >= 0 else { return -1 }
                r.pointee.position = target
                return sf_count_t(target)
            },
            read: { ptr, count, user in
                let r = user!.assumingMemoryBound(to: MemoryReader.self)
                let available = max(0, r.pointee.count - r.pointee.position)
                let n = min(Int(count), available)
                guard n > 0, let ptr else { return 0 }
                ptr.copyMemory(from: r.pointee.base + r.pointee.position, byteCount: n)
                r.pointee.position += n
                return sf_count_t(n)
            },
            write: { _, _, _ in 0 },
            tell: { user in
                sf_count_t(user!.assumingMemoryBound(to: MemoryReader.self).pointee.position)
            })
        var info = SF_INFO()
        var opened: OpaquePointer?, code: Int32 = 0, message = ""
        sndfileOpenLock.withLock { _ in
            opened = sf_open_virtual(&io, Int32(SFM_READ), &info, reader)
            if opened == nil {
                code = sf_error(nil)
                message = String(cString: sf_strerror(nil))
            }
        }
        guard let opened else {
            switch Int(code) {
            case SF_ERR_UNRECOGNISED_FORMAT, SF_ERR_UNSUPPORTED_ENCODING:
                throw AudioDecodeError(.unrecognised, message)
            default:
                throw AudioDecodeError(.corrupt, message)
            }
        }
        return SndfileHandle(sndfile: opened, info: info)
    }

    /// Reads up to `frames` interleaved frames; returns how many arrived (0 at the end).
    func readFrames(into buffer: UnsafeMutableBufferPointer<Float>, frames: Int) -> Int {
        Int(sf_readf_float(sndfile, buffer.baseAddress, sf_count_t(frames)))
    }

    /// The decoder's error after reading, or nil when the stream read cleanly.
    func streamError() -> String? {
        sf_error(sndfile) == 0 ? nil : String(cString: sf_strerror(sndfile))
    }

    /// libsndfile's parse log: where it notes header sizes that disagree with the bytes.
    func logInfo() -> String {
        var buffer = [CChar](repeating: 0, count: 8192)
        let n = buffer.withUnsafeMutableBytes {
            sf_command(sndfile, Int32(SFC_GET_LOG_INFO), $0.baseAddress, Int32($0.count - 1))
        }
        guard n > 0 else { return "" }
        return String(decoding: buffer.prefix(Int(n)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    func close() { sf_close(sndfile) }
}

/// One libsndfile writer into memory (a `MemoryWriter`, which it keeps alive); closed by `finish`.
final class SndfileWriter {
    private let sndfile: OpaquePointer
    private let sink: MemoryWriter

    private init(sndfile: OpaquePointer, sink: MemoryWriter) {
        self.sndfile = sndfile
        self.sink = sink
    }

    /// Whether libsndfile can write `encoding` with this rate and channel count.
    static func supports(_ encoding: AudioEncoding, sampleRate: Int, channels: Int) -> Bool {
        var info = SndfileFormat.info(encoding, sampleRate: sampleRate, channels: channels)
        return sf_format_check(&info) != 0
    }

    /// Opens a writer, or gives libsndfile's reason for refusing.
    static func open(_ encoding: AudioEncoding, sampleRate: Int, channels: Int) -> Result<SndfileWriter, AudioEncodeError> {
        var info = SndfileFormat.info(encoding, sampleRate: sampleRate, channels: channels)
        let sink = MemoryWriter()
        var io = MemoryWriter.virtualIO
        var opened: OpaquePointer?, message = ""
        let context = Unmanaged.passUnretained(sink).toOpaque()
        sndfileOpenLock.withLock { _ in
            opened = sf_open_virtual(&io, Int32(SFM_WRITE), &info, context)
            if opened == nil { message = String(cString: sf_strerror(nil)) }
        }
        guard let opened else {
            return .failure(AudioEncodeError("libsndfile refused to open a \(encoding.rawValue) writer: \(message)"))
        }
        return .success(SndfileWriter(sndfile: opened, sink: sink))
    }

    /// Clip instead of letting the encoder wrap integers around; it is what a recorder does.
    func enableClipping() {
        _ = sf_command(sndfile, Int32(SFC_SET_CLIPPING), nil, Int32(SF_TRUE))
    }

    /// Writes `frames` interleaved frames; returns how many were written.
    func writeFrames(_ interleaved: UnsafeBufferPointer<Float>, frames: Int) -> Int {
        Int(sf_writef_float(sndfile, interleaved.baseAddress, sf_count_t(frames)))
    }

    /// Closes the writer; returns the bytes written, whether the stream reported an error before
    /// closing, and libsndfile's message for its state ("No Error." when there was none).
    func finish() -> (bytes: [UInt8], failed: Bool, message: String) {
        let failed = sf_error(sndfile) != 0
        let message = String(cString: sf_strerror(sndfile))
        sf_close(sndfile)
        return (sink.bytes, failed, message)
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

/// Maps libsndfile's format codes and log lines to the Swift vocabulary.
enum SndfileFormat {
    /// The `SF_INFO` a writer of `encoding` is opened with.
    static func info(_ encoding: AudioEncoding, sampleRate: Int, channels: Int) -> SF_INFO {
        var info = SF_INFO()
        info.samplerate = Int32(sampleRate)
        info.channels = Int32(channels)
        info.format = code(of: encoding)
        return info
    }

    static func code(of encoding: AudioEncoding) -> Int32 {
        switch encoding {
        case .wavPCM16: return Int32(SF_FORMAT_WAV | SF_FORMAT_PCM_16)
        case .flac: return Int32(SF_FORMAT_FLAC | SF_FORMAT_PCM_16)
        case .oggVorbis: return Int32(SF_FORMAT_OGG | SF_FORMAT_VORBIS)
        case .oggOpus: return Int32(SF_FORMAT_OGG | SF_FORMAT_OPUS)
        case .mp3: return Int32(SF_FORMAT_MPEG | SF_FORMAT_MPEG_LAYER_III)
        }
    }

    static func container(_ format: Int32) -> AudioContainer {
        switch Int(format) & SF_FORMAT_TYPEMASK {
        case SF_FORMAT_WAV, SF_FORMAT_WAVEX, SF_FORMAT_RF64: return .wav
        case SF_FORMAT_FLAC: return .flac
        case SF_FORMAT_OGG: return .ogg
        case SF_FORMAT_MPEG: return .mp3
        default: return .other
        }
    }

    private static let subtypes: [Int: String] = [
        SF_FORMAT_PCM_S8: "pcm8", SF_FORMAT_PCM_U8: "pcmu8",
        SF_FORMAT_PCM_16: "pcm16", SF_FORMAT_PCM_24: "pcm24",
        SF_FORMAT_PCM_32: "pcm32", SF_FORMAT_FLOAT: "float",
        SF_FORMAT_DOUBLE: "double", SF_FORMAT_ULAW: "ulaw",
        SF_FORMAT_ALAW: "alaw", SF_FORMAT_IMA_ADPCM: "ima_adpcm",
        SF_FORMAT_MS_ADPCM: "ms_adpcm", SF_FORMAT_GSM610: "gsm610",
        SF_FORMAT_VORBIS: "vorbis", SF_FORMAT_OPUS: "opus",
        SF_FORMAT_MPEG_LAYER_I: "mp1", SF_FORMAT_MPEG_LAYER_II: "mp2",
        SF_FORMAT_MPEG_LAYER_III: "mp3",
    ]

    static func subtype(_ format: Int32) -> String {
        let code = Int(format) & SF_FORMAT_SUBMASK
        return subtypes[code] ?? "0x" + String(code, radix: 16)
    }

    /// A truncation libsndfile noticed but tolerated, from its log; nil when none.
    ///
    /// For WAV it clamps a RIFF or data chunk longer than the file and logs
    /// `data : 164940 (should be 19956)`. (Its Ogg note about a missing end-of-stream flag is not
    /// used: libsndfile 1.2.0 logs it for complete Vorbis files too; see `OggFraming`.) Only a
    /// declared size *larger* than the bytes counts: a smaller one is padding, not lost audio.
    static func truncationInLog(_ log: String) -> String? {
        for line in log.split(separator: "\n") {
            let text = line.trimmingCharacters(in: .whitespaces)
            guard text.hasPrefix("data :") || text.hasPrefix("RIFF :"),
                  let open = text.range(of: "(should be ") else { continue }
            let declared = Int(text.dropFirst(6).prefix { $0 != "(" }.trimmingCharacters(in: .whitespaces))
            let actual = Int(text[open.upperBound...].prefix { $0.isNumber })
            if let declared, let actual, declared > actual {
                let chunk = text.hasPrefix("data") ? "data" : "RIFF"
                return "WAV \(chunk) chunk declares \(declared) bytes but only \(actual) are present"
            }
        }
        return nil
    }
}
