import CSndfile
import Foundation
import Synchronization

// The only file that touches libsndfile's C API: handles, virtual I/O callbacks and format codes
// stay here, and callers see Swift values and `AudioDecodeError`.

/// The caller's bytes as a seekable read-only stream for `sf_open_virtual`.
struct MemoryReader {
    let base: UnsafeRawPointer
    let count: Int
    var position: Int
}

/// One open libsndfile handle over a `MemoryReader`; closed exactly once by its owner.
final class SndfileHandle {
    let info: SF_INFO
    private let sndfile: OpaquePointer

    private init(sndfile: OpaquePointer, info: SF_INFO) {
        self.sndfile = sndfile
        self.info = info
    }

    /// Serialises opens: on failure libsndfile reports the error through a process-wide variable
    /// (`sf_error(NULL)`), which concurrent failing opens would otherwise overwrite mid-read.
    private static let openLock = Mutex(())

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
        openLock.withLock { _ in
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

/// Maps libsndfile's format codes and log lines to the Swift vocabulary.
enum SndfileFormat {
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
