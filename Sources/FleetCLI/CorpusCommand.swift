import FleetAudio
import FleetCorpus
import FleetCore

/// `fleet corpus validate [DIR]` and `fleet corpus inspect FILE…`.
///
/// `validate` loads the corpus exactly as a run does (every clip mapped, hashed, decoded and its
/// duration compared with the manifest), then checks that each clip's audio gives the outcome
/// the manifest expects; it prints a summary and exits 0, or lists every bad clip and exits 2.
/// `inspect` prints the features and verdict of audio files, for tuning and debugging.
public enum CorpusCommand: FleetCommand {
    public static let name = "corpus"
    public static let summary = "validate [DIR] the audio corpus, or inspect FILE… audio files"

    public static func run(_ arguments: [String], io: CommandIO) throws -> Int32 {
        guard let sub = arguments.first else {
            throw UsageError("expected 'validate [DIR]' or 'inspect [--content-type TYPE] FILE…'")
        }
        switch sub {
        case "validate": return try validate(Array(arguments.dropFirst()), io: io)
        case "inspect": return try inspect(Array(arguments.dropFirst()), io: io)
        default: throw UsageError("unknown subcommand '\(sub)' (expected validate or inspect)")
        }
    }

    static func validate(_ arguments: [String], io: CommandIO) throws -> Int32 {
        var reader = ArgumentReader(arguments)
        let rest = try reader.finish()
        guard rest.count <= 1 else { throw UsageError("validate takes one directory, got \(rest.count) arguments") }
        let directory = rest.first ?? "audio-corpus"
        let started = MonotonicClock.now()
        let corpus: Corpus
        do {
            corpus = try Corpus.load(directory: directory)
        } catch {
            io.err(error.description)
            return ExitCode.usage
        }
        let problems = corpus.expectationProblems()
        guard problems.isEmpty else {
            io.err(CorpusError(directory: directory, problems: problems).description)
            return ExitCode.usage
        }
        let ms = (MonotonicClock.now() - started) / 1_000_000
        io.out(corpus.summary() + "\n  every clip decodes, matches its sha256 and duration, and assesses as expected (\(ms) ms)")
        return ExitCode.success
    }

    static func inspect(_ arguments: [String], io: CommandIO) throws -> Int32 {
        var reader = ArgumentReader(arguments)
        let declared = try reader.option("content-type")
        let files = try reader.finish()
        guard !files.isEmpty else { throw UsageError("inspect needs at least one FILE") }
        for path in files {
            guard let bytes = FileBytes.read(path) else {
                io.err("\(path): cannot be read")
                return ExitCode.usage
            }
            let type = declared ?? contentType(forExtension: path.split(separator: ".").last.map(String.init) ?? "")
            let v = AudioAnalysis.assess(bytes: bytes, declaredContentType: type)
            var line = "\(path) [\(type)]: \(v.quality.rawValue) → \(v.quality.outcome.rawValue)"
            if let f = v.features {
                line += "; \(f.durationMs) ms, \(f.sampleRate) Hz × \(f.channels), rms \(round1(f.rmsDbfs)) dBFS, peak \(round1(f.peak * 100)) %, clipped \(round1(f.clippedFraction * 100)) %, active \(round1(f.activeFraction * 100)) %"
            }
            if let d = v.detail { line += " (\(d))" }
            io.out(line)
        }
        return ExitCode.success
    }

    private static func contentType(forExtension ext: String) -> String {
        switch ext.lowercased() {
        case "flac": return "audio/flac"
        case "opus", "ogg", "oga": return "audio/ogg"
        case "wav": return "audio/wav"
        case "mp3": return "audio/mpeg"
        default: return "application/octet-stream"
        }
    }

    private static func round1(_ x: Double) -> Double { (x * 10).rounded() / 10 }
}
