import FleetCore
import FleetCorpus
import FleetHTTP
import FleetJourneys

/// The audio corpus as the users' microphone: clips loaded and checked once at start-up, then
/// shared read-only by every upload (each upload body is a slice of the corpus's bytes).
public struct CorpusRecordings: RecordingSource {
    public let corpus: Corpus

    /// Loads and checks the whole corpus (clips unchanged since they last passed come from the
    /// check cache); refuses with the list of every bad clip.
    public static func load(directory: String, cache: Bool = true) throws -> CorpusRecordings {
        CorpusRecordings(corpus: try Corpus.load(directory: directory,
                                                 cache: cache ? CorpusCheckCache(path: CorpusCheckCache.defaultPath(forCorpus: directory)) : nil))
    }

    public func pick(language: String, round: Int, classMix: [String: Double], random: inout SeededRandom) -> Recording? {
        let clip = corpus.pick(language: language, round: round, classMix: classMix, using: &random)
        return Recording(body: HTTPBody(clip.bytes, range: clip.range), sha256: clip.sha256, contentType: clip.contentType,
                         durationMs: clip.durationMs, clipClass: clip.clipClass.rawValue, name: clip.file)
    }
}
