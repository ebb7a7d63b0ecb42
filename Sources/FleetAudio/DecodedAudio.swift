import Foundation

/// The container a clip's bytes turned out to be, as libsndfile recognised it.
///
/// Only the containers an app would upload are named; anything else libsndfile can read (AIFF,
/// AU, CAF, …) is `other`, which never matches a declared content type.
public enum AudioContainer: String, Sendable, Codable, CaseIterable {
    case wav, flac, ogg, mp3, other

    /// The container a declared `Content-Type` promises, or nil for a type no upload should use.
    ///
    /// Parameters (`audio/ogg; codecs=opus`) and case are ignored.
    public static func declared(by contentType: String) -> AudioContainer? {
        let base = contentType.split(separator: ";", maxSplits: 1).first
            .map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        switch base {
        case "audio/flac", "audio/x-flac": return .flac
        case "audio/ogg", "audio/opus", "audio/vorbis": return .ogg
        case "audio/wav", "audio/x-wav", "audio/wave", "audio/vnd.wave": return .wav
        case "audio/mpeg", "audio/mp3": return .mp3
        default: return nil
        }
    }

    /// The content type an upload of this container should declare.
    public var contentType: String {
        switch self {
        case .wav: return "audio/wav"
        case .flac: return "audio/flac"
        case .ogg: return "audio/ogg"
        case .mp3: return "audio/mpeg"
        case .other: return "application/octet-stream"
        }
    }
}

/// A whole clip decoded to floating point and mixed down to one channel.
///
/// The decoder guarantees `frames == mono.count` and that every frame the header declared was
/// read (a short read is a `.truncated` error, never a silently shorter clip).
public struct DecodedAudio: Sendable {
    public let sampleRate: Int
    /// Channels in the file; `mono` is their average.
    public let channels: Int
    public let frames: Int
    public let container: AudioContainer
    /// The encoding inside the container: "pcm16", "pcm24", "float", "vorbis", "opus", "mp3", …
    public let subtype: String
    /// Samples mixed down to one channel, nominally in −1…1 (lossy codecs may overshoot slightly).
    public let mono: [Float]

    public init(sampleRate: Int, channels: Int, container: AudioContainer, subtype: String, mono: [Float]) {
        self.sampleRate = sampleRate
        self.channels = channels
        self.frames = mono.count
        self.container = container
        self.subtype = subtype
        self.mono = mono
    }

    /// Length in whole milliseconds (rounded down).
    public var durationMs: Int { sampleRate > 0 ? frames * 1000 / sampleRate : 0 }
}

/// Why bytes could not be decoded; the message names what libsndfile reported.
public struct AudioDecodeError: Error, Sendable, CustomStringConvertible, Equatable {
    public enum Kind: String, Sendable, Codable {
        /// Zero bytes.
        case empty
        /// Not a format libsndfile knows (garbage, text, an unsupported container or encoding).
        case unrecognised
        /// The header promised more audio than the bytes hold.
        case truncated
        /// A known format whose header or stream is damaged.
        case corrupt
        /// The file could not be opened or mapped (missing, unreadable).
        case io
    }

    public let kind: Kind
    public let message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { "\(kind.rawValue) audio: \(message)" }
}
