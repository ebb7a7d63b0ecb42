import FleetAudio
import Foundation

/// What a corpus clip is meant to exercise; `audio-corpus/manifest.json` names one per clip.
public enum ClipClass: String, Sendable, Codable, CaseIterable {
    case speech, silence, near_silence, clipped, short, long, stereo, hi_rate, truncated, empty, mismatch

    /// Whether the clip's bytes are meant to decode (truncated and empty ones must not).
    public var decodes: Bool { self != .truncated && self != .empty }
}

/// The outcome the stack should give a clip: an attempt's terminal status, or `rejected` when
/// `POST /sessions/{id}/attempts` refuses it up front (`duration_ms` over 92 000).
public enum ExpectedOutcome: String, Sendable, Codable, CaseIterable {
    case assessed, unreliable, failed, rejected
}

/// One entry of the manifest: a clip's file, what the app declares about it, and its expectation.
public struct ClipInfo: Sendable, Codable, Equatable {
    /// Path relative to the corpus directory (`clips/en/…`).
    public var file: String
    public var language: String
    public var articleId: String
    public var round: Int
    /// The recording's length as the app declares it (for undecodable clips, what was recorded).
    public var durationMs: Int
    public var sampleRate: Int
    public var channels: Int
    /// The format the file name promises: `flac`, `opus`, `wav` or `mp3`.
    public var format: String
    public var contentType: String
    public var sizeBytes: Int
    public var sha256: String
    public var clipClass: ClipClass
    public var expectedOutcome: ExpectedOutcome
    /// The attempt's `reason` (an `AudioQuality`), or `invalid_request` for a rejected clip.
    public var expectedReason: String?
    public var voice: String?
    public var speedWpm: Int?

    enum CodingKeys: String, CodingKey {
        case file, language, round, format, channels, sha256, voice
        case articleId = "article_id", durationMs = "duration_ms", sampleRate = "sample_rate"
        case contentType = "content_type", sizeBytes = "size_bytes", clipClass = "class"
        case expectedOutcome = "expected_outcome", expectedReason = "expected_reason", speedWpm = "speed_wpm"
    }

    /// The container the file name's format stands for.
    public var namedContainer: AudioContainer {
        switch format {
        case "flac": return .flac
        case "opus", "ogg": return .ogg
        case "wav": return .wav
        case "mp3": return .mp3
        default: return .other
        }
    }
}

/// `manifest.json`: `{version, note?, clips: [ClipInfo]}`.
struct CorpusManifest: Codable {
    var version: Int
    var note: String?
    var clips: [ClipInfo]

    /// Parses the manifest; an error names the JSON path that is wrong (`clips[3].duration_ms`).
    static func parse(_ data: Data) throws(CorpusError.Problem) -> CorpusManifest {
        do {
            return try JSONDecoder().decode(CorpusManifest.self, from: data)
        } catch let DecodingError.keyNotFound(key, context) {
            throw .init(file: "manifest.json", "\(path(context.codingPath + [key])): missing")
        } catch let DecodingError.typeMismatch(type, context) {
            throw .init(file: "manifest.json", "\(path(context.codingPath)): expected \(type)")
        } catch let DecodingError.valueNotFound(type, context) {
            throw .init(file: "manifest.json", "\(path(context.codingPath)): expected \(type), got null")
        } catch let DecodingError.dataCorrupted(context) {
            let at = context.codingPath.isEmpty ? "" : path(context.codingPath) + ": "
            throw .init(file: "manifest.json", "\(at)\(context.debugDescription)")
        } catch {
            throw .init(file: "manifest.json", "\(error)")
        }
    }

    private static func path(_ keys: [any CodingKey]) -> String {
        var s = ""
        for k in keys {
            if let i = k.intValue { s += "[\(i)]" } else { s += (s.isEmpty ? "" : ".") + k.stringValue }
        }
        return s.isEmpty ? "(top level)" : s
    }
}

/// A corpus that must not be used, with every problem found (not just the first).
public struct CorpusError: Error, Sendable, CustomStringConvertible {
    /// One thing wrong, named by the clip file (or `manifest.json`) it concerns.
    public struct Problem: Error, Sendable, CustomStringConvertible, Equatable {
        public let file: String
        public let message: String
        public init(file: String, _ message: String) {
            self.file = file
            self.message = message
        }
        public var description: String { "\(file): \(message)" }
    }

    public let directory: String
    public let problems: [Problem]

    public init(directory: String, problems: [Problem]) {
        self.directory = directory
        self.problems = problems
    }

    /// The distinct files named by the problems, in order.
    public var badFiles: [String] {
        var seen = Set<String>()
        return problems.map(\.file).filter { seen.insert($0).inserted }
    }

    public var description: String {
        let files = badFiles.count
        var s = "corpus \(directory): \(problems.count) problem\(problems.count == 1 ? "" : "s") in \(files) file\(files == 1 ? "" : "s")"
        for p in problems { s += "\n  - \(p.description)" }
        return s
    }
}
