import FleetCore
import Foundation

/// Decodes whole clips with libsndfile, from memory or from a file.
///
/// Input is read through `sf_open_virtual` over the caller's bytes, so an upload held in a
/// `SharedBytes` is decoded without a copy. Every frame the header declares must arrive: a short
/// read, a RIFF/data size larger than the bytes, or an Ogg stream without its end-of-stream page
/// is `.truncated`, never a silently shorter clip. Safe to call from many threads at once.
public enum AudioDecoder {
    /// The longest clip decoded (20 minutes at 48 kHz); longer declarations are refused before
    /// allocating, so a forged header cannot make the stack allocate gigabytes.
    public static let maxFrames = 48_000 * 60 * 20

    public static func decode(_ bytes: [UInt8]) throws(AudioDecodeError) -> DecodedAudio {
        let result: Result<DecodedAudio, AudioDecodeError> = bytes.withUnsafeBytes { raw in
            Result { () throws(AudioDecodeError) in try decode(raw) }
        }
        return try result.get()
    }

    public static func decode(_ bytes: UnsafeRawBufferPointer) throws(AudioDecodeError) -> DecodedAudio {
        guard bytes.count > 0, let base = bytes.baseAddress else {
            throw AudioDecodeError(.empty, "no bytes")
        }
        // Heap-allocated because libsndfile keeps the pointer and calls back into it on every read
        // until the handle is closed.
        let reader = UnsafeMutablePointer<MemoryReader>.allocate(capacity: 1)
        reader.initialize(to: MemoryReader(base: base, count: bytes.count, position: 0))
        defer { reader.deinitialize(count: 1); reader.deallocate() }
        let handle = try SndfileHandle.open(reader: reader)
        defer { handle.close() }
        let audio = try readAll(handle, size: bytes.count)
        if audio.container == .ogg, let problem = OggFraming.truncation(in: bytes) {
            throw AudioDecodeError(.truncated, problem)
        }
        return audio
    }

    /// Decodes a file by mapping it read-only (the same checks as for bytes in memory).
    public static func decode(path: String) throws(AudioDecodeError) -> DecodedAudio {
        let mapped: SharedBytes
        do {
            mapped = try SharedBytes(mappingFile: path)
        } catch {
            throw AudioDecodeError(.io, "\(error)")
        }
        do {
            let result: Result<DecodedAudio, AudioDecodeError> = mapped.withUnsafeBytes { raw in
                Result { () throws(AudioDecodeError) in try decode(raw) }
            }
            return try result.get()
        } catch {
            throw AudioDecodeError(error.kind, "\(path): \(error.message)")
        }
    }

    private static func readAll(_ handle: SndfileHandle, size: Int) throws(AudioDecodeError) -> DecodedAudio {
        let channels = handle.channels
        let rate = handle.sampleRate
        guard channels > 0, rate > 0 else {
            throw AudioDecodeError(.corrupt, "header declares \(channels) channels at \(rate) Hz")
        }
        let container = handle.container
        let subtype = handle.subtype
        let declared = handle.declaredFrames
        if let declared, declared > maxFrames {
            throw AudioDecodeError(.corrupt, "header declares \(declared) frames, more than the \(maxFrames) accepted")
        }
        if let problem = SndfileFormat.truncationInLog(handle.logInfo()) {
            throw AudioDecodeError(.truncated, problem)
        }
        if container == .ogg && declared == nil {
            throw AudioDecodeError(.truncated, "Ogg stream has no final page (length unknown)")
        }

        var mono: [Float] = []
        // Reserve no more than the bytes could plausibly hold (16 frames a byte is beyond even
        // FLAC of silence), so a forged length in a small file cannot reserve hundreds of MB.
        mono.reserveCapacity(min(declared ?? size * 4, size * 16, maxFrames))
        let chunk = 4096
        var interleaved = [Float](repeating: 0, count: chunk * channels)
        let scale = 1 / Float(channels)
        while mono.count < maxFrames {
            let n = interleaved.withUnsafeMutableBufferPointer { handle.readFrames(into: $0, frames: chunk) }
            if n <= 0 { break }
            if channels == 1 {
                mono.append(contentsOf: interleaved[0..<n])
            } else {
                for f in 0..<n {
                    var sum: Float = 0
                    for c in 0..<channels { sum += interleaved[f * channels + c] }
                    mono.append(sum * scale)
                }
            }
        }
        if let message = handle.streamError() {
            let kind: AudioDecodeError.Kind = declared.map { mono.count < $0 } == true ? .truncated : .corrupt
            throw AudioDecodeError(kind, "decoder error after \(mono.count) frames: \(message)")
        }
        if let declared, mono.count < declared {
            throw AudioDecodeError(.truncated, "header declares \(declared) frames but only \(mono.count) could be read")
        }
        return DecodedAudio(sampleRate: rate, channels: channels, container: container, subtype: subtype, mono: mono)
    }
}
