/// What an assessment worker concludes from an upload's bytes alone.
public enum AudioQuality: String, Sendable, Codable, CaseIterable {
    case ok, clipped, too_short, silence, too_quiet, unreadable, format_mismatch

    /// The terminal attempt status the reference stack gives for this quality.
    ///
    /// Bytes that cannot be heard at all fail; audio that decodes but holds too little to judge
    /// is unreliable; the rest is assessed (clipped audio too, with `reason: clipped` and a lower
    /// confidence: distorted speech can still be scored).
    public var outcome: AssessmentOutcome {
        switch self {
        case .ok, .clipped: return .assessed
        case .too_short, .silence, .too_quiet: return .unreliable
        case .unreadable, .format_mismatch: return .failed
        }
    }
}

/// The terminal status of an attempt, as `GET /attempts/{id}` reports it.
public enum AssessmentOutcome: String, Sendable, Codable, CaseIterable {
    case assessed, unreliable, failed
}

/// The conclusion about one upload: its quality, the measures behind it when it decoded, and a
/// human-readable detail for the attempt's `reason` (the decode error or the measure that failed).
public struct AudioVerdict: Sendable, Equatable, Codable {
    public var quality: AudioQuality
    public var features: AudioFeatures?
    public var detail: String?

    public init(quality: AudioQuality, features: AudioFeatures?, detail: String? = nil) {
        self.quality = quality
        self.features = features
        self.detail = detail
    }
}

/// Pure, deterministic audio checks shared by the reference stack and the corpus tools.
public enum AudioAnalysis {
    /// The thresholds of `assess`, chosen so that the corpus classes fall well apart
    /// (espeak speech is around −20 dBFS RMS with ≥ 60 % active frames).
    public enum Thresholds {
        /// Shorter clips are `too_short` (the app needs at least a second to judge anything).
        public static let minDurationMs = 1000
        /// Below this whole-clip RMS the clip is (near) digital silence.
        public static let silenceDbfs = -60.0
        /// A 20 ms frame louder than this (RMS) counts as speech activity.
        public static let speechFrameDbfs = -40.0
        /// Fewer active frames than this share is `too_quiet`.
        public static let minActiveFraction = 0.2
        /// A sample at or beyond this magnitude counts as clipped.
        public static let clipLevel = 0.99
        /// More clipped samples than this share is `clipped` (healthy speech has none).
        public static let maxClippedFraction = 0.01
    }

    /// Decides an upload's quality; pure and deterministic. The rules, first match wins:
    ///
    /// 1. the bytes do not decode (empty, garbage, truncated, corrupt) → `unreadable`;
    /// 2. the decoded container is not the one `declaredContentType` names (`audio/flac` ↔ FLAC,
    ///    `audio/ogg`/`audio/opus` ↔ Ogg, `audio/wav`/`audio/x-wav` ↔ WAV, `audio/mpeg` ↔ MP3;
    ///    any other type matches nothing) → `format_mismatch`;
    /// 3. shorter than `Thresholds.minDurationMs` → `too_short`;
    /// 4. RMS below `Thresholds.silenceDbfs` → `silence`;
    /// 5. fewer than `Thresholds.minActiveFraction` of 20 ms frames above
    ///    `Thresholds.speechFrameDbfs` → `too_quiet`;
    /// 6. more than `Thresholds.maxClippedFraction` of samples at `Thresholds.clipLevel` → `clipped`;
    /// 7. otherwise `ok`. Stereo and any sample rate are accepted; features come from the mono mix.
    public static func assess(bytes: [UInt8], declaredContentType: String) -> AudioVerdict {
        bytes.withUnsafeBytes { assess(bytes: $0, declaredContentType: declaredContentType) }
    }

    /// The same as `assess(bytes:declaredContentType:)` over bytes the caller keeps (no copy).
    public static func assess(bytes: UnsafeRawBufferPointer, declaredContentType: String) -> AudioVerdict {
        let audio: DecodedAudio
        do {
            audio = try AudioDecoder.decode(bytes)
        } catch {
            return AudioVerdict(quality: .unreadable, features: nil, detail: error.description)
        }
        return assess(audio, declaredContentType: declaredContentType)
    }

    /// Rules 2–7 of `assess` for audio that already decoded.
    public static func assess(_ audio: DecodedAudio, declaredContentType: String) -> AudioVerdict {
        let f = features(of: audio)
        let declared = AudioContainer.declared(by: declaredContentType)
        if declared != audio.container || audio.container == .other {
            let named = declared?.rawValue ?? "no known container"
            return AudioVerdict(quality: .format_mismatch, features: f,
                                detail: "declared \(declaredContentType) (\(named)) but the bytes are \(audio.container.rawValue)/\(audio.subtype)")
        }
        if f.durationMs < Thresholds.minDurationMs {
            return AudioVerdict(quality: .too_short, features: f,
                                detail: "\(f.durationMs) ms is under \(Thresholds.minDurationMs) ms")
        }
        if f.rmsDbfs < Thresholds.silenceDbfs {
            return AudioVerdict(quality: .silence, features: f,
                                detail: "level \(rounded(f.rmsDbfs)) dBFS is under \(Thresholds.silenceDbfs) dBFS")
        }
        if f.activeFraction < Thresholds.minActiveFraction {
            return AudioVerdict(quality: .too_quiet, features: f,
                                detail: "only \(rounded(f.activeFraction * 100)) % of frames reach \(Thresholds.speechFrameDbfs) dBFS")
        }
        if f.clippedFraction > Thresholds.maxClippedFraction {
            return AudioVerdict(quality: .clipped, features: f,
                                detail: "\(rounded(f.clippedFraction * 100)) % of samples are clipped")
        }
        return AudioVerdict(quality: .ok, features: f)
    }

    private static func rounded(_ x: Double) -> Double { (x * 10).rounded() / 10 }
}
