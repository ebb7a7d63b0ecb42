import FleetAudio
import FleetCore
import Foundation
import Synchronization

/// One corpus clip: its manifest entry and its bytes, shared read-only by every virtual user.
public struct Clip: Sendable {
    public let info: ClipInfo
    /// The storage the bytes live in (a read-only mapping of the clip file, never copied).
    public let bytes: SharedBytes
    /// Where this clip's bytes sit inside `bytes`.
    public let range: Range<Int>
    /// What `AudioAnalysis.assess` concluded about the bytes when the corpus was loaded (kept so
    /// that checking expectations does not decode every clip a second time).
    public let verdict: AudioVerdict

    public var file: String { info.file }
    public var language: String { info.language }
    public var round: Int { info.round }
    public var clipClass: ClipClass { info.clipClass }
    public var contentType: String { info.contentType }
    public var durationMs: Int { info.durationMs }
    public var sha256: String { info.sha256 }
    public var sizeBytes: Int { range.count }

    /// The clip's bytes, valid only inside `body` and never to be written through.
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try bytes.withUnsafeBytes { all in try body(UnsafeRawBufferPointer(rebasing: all[range])) }
    }
}

/// The speech corpus, loaded and checked once at start-up.
///
/// Every clip is mapped read-only once (`SharedBytes(mappingFile:)`), so 10 000 users uploading
/// the same clip share one set of pages. Loading refuses a corpus with anything wrong, listing
/// every bad clip: a missing file, a size or sha256 other than the manifest's, a clip meant to
/// decode that does not (or whose duration is off by more than `durationToleranceMs`, or whose
/// rate, channels or container differ), and a clip meant to be undecodable that decodes.
public struct Corpus: Sendable {
    public static let durationToleranceMs = 50

    public let directory: String
    public let clips: [Clip]
    /// How many clips were taken from the check cache rather than checked again (0 without a cache).
    public var remembered = 0

    /// Total bytes of all clips (the memory the corpus maps).
    public var totalBytes: Int { clips.reduce(0) { $0 + $1.sizeBytes } }

    /// Clip indices by language key (`languageKey`), then class and round: a take finds its
    /// candidates without comparing every clip (a scan of the whole corpus per take).
    let byLanguage: [String: PickIndex.Pool]
    /// The same over every clip: the pool of a language the corpus has no clip of.
    let everyClip: PickIndex.Pool

    public init(directory: String, clips: [Clip]) {
        self.directory = directory
        self.clips = clips
        byLanguage = Dictionary(grouping: clips.indices) { Self.languageKey(clips[$0].language) }
            .mapValues { PickIndex.pool($0, of: clips) }
        everyClip = PickIndex.pool(clips.indices, of: clips)
    }

    /// The manifest's entries alone, without opening any clip (for tools that handle the files).
    public static func manifest(directory: String) throws(CorpusError) -> [ClipInfo] {
        try readManifest(directory).clips
    }

    private static func readManifest(_ directory: String) throws(CorpusError) -> CorpusManifest {
        try readManifestAndDigest(directory).0
    }

    private static func readManifestAndDigest(_ directory: String) throws(CorpusError) -> (CorpusManifest, String) {
        guard let data = FileManager.default.contents(atPath: directory + "/manifest.json") else {
            throw CorpusError(directory: directory, problems: [.init(file: "manifest.json", "missing or unreadable")])
        }
        do {
            return (try CorpusManifest.parse(data), SHA256.hex(Array(data)))
        } catch {
            throw CorpusError(directory: directory, problems: [error])
        }
    }

    /// Reads `manifest.json` in `directory`, maps every clip and checks it; see the type's doc.
    /// With a `cache`, a clip whose size, modification time and manifest are as when it last
    /// passed is mapped and size-checked only (no digest, no decode), and the cache is updated.
    public static func load(directory: String, cache: CorpusCheckCache? = nil) throws(CorpusError) -> Corpus {
        let (manifest, manifestDigest) = try readManifestAndDigest(directory)
        let known = cache?.load() ?? [:]
        var problems: [CorpusError.Problem] = []
        if manifest.clips.isEmpty { problems.append(.init(file: "manifest.json", "lists no clips")) }
        var seen = Set<String>()
        for info in manifest.clips where !seen.insert(info.file).inserted {
            problems.append(.init(file: info.file, "listed more than once"))
        }

        // Checking decodes every clip; spread it over the cores (results kept in manifest order).
        let results = LoadResults(count: manifest.clips.count)
        let stamps = manifest.clips.map { CorpusCheckCache.stamp(directory + "/" + $0.file) }
        DispatchQueue.concurrentPerform(iterations: manifest.clips.count) { i in
            let info = manifest.clips[i]
            if let e = known[info.file], let st = stamps[i], e.manifestSHA256 == manifestDigest, e.sizeBytes == st.size,
               e.mtimeNanos == st.mtimeNanos, let remembered = recall(info, directory: directory, verdict: e.verdict) {
                results.set(i, (remembered, []), remembered: true)
            } else {
                results.set(i, check(info, directory: directory))
            }
        }
        var clips: [Clip] = []
        var entries = known
        for (i, (clip, found)) in results.all.enumerated() {
            problems += found
            if let clip, found.isEmpty {
                clips.append(clip)
                if let st = stamps[i] {
                    entries[clip.file] = .init(manifestSHA256: manifestDigest, sizeBytes: st.size, mtimeNanos: st.mtimeNanos,
                                               verdict: clip.verdict)
                }
            } else {
                entries.removeValue(forKey: manifest.clips[i].file)
            }
        }
        if let cache, entries != known { cache.save(entries) }
        guard problems.isEmpty else { throw CorpusError(directory: directory, problems: problems) }
        var corpus = Corpus(directory: directory, clips: clips)
        corpus.remembered = results.rememberedCount
        return corpus
    }

    /// A clip that passed before and has not changed since: mapped, its fields and size checked.
    /// Nothing reads it before its first upload; the mapping reads its pages in (`SharedBytes`),
    /// so that upload does not fault them in on an I/O thread.
    static func recall(_ info: ClipInfo, directory: String, verdict: AudioVerdict) -> Clip? {
        guard fieldProblems(info).isEmpty,
              let bytes = try? SharedBytes(mappingFile: directory + "/" + info.file),
              bytes.count == info.sizeBytes else { return nil }
        return Clip(info: info, bytes: bytes, range: 0..<bytes.count, verdict: verdict)
    }

    /// Every problem with one clip, and the clip when its file could be mapped.
    static func check(_ info: ClipInfo, directory: String) -> (Clip?, [CorpusError.Problem]) {
        var problems: [String] = []
        func done(_ clip: Clip?) -> (Clip?, [CorpusError.Problem]) {
            (clip, problems.map { CorpusError.Problem(file: info.file, $0) })
        }
        problems += fieldProblems(info)
        let bytes: SharedBytes
        do {
            bytes = try SharedBytes(mappingFile: directory + "/" + info.file)
        } catch {
            problems.append(FileManager.default.fileExists(atPath: directory + "/" + info.file)
                            ? "cannot be read (\(error))" : "file is missing")
            return done(nil)
        }
        if bytes.count != info.sizeBytes {
            problems.append("size is \(bytes.count) bytes, manifest says \(info.sizeBytes)")
        }
        let digest = bytes.withUnsafeBytes { raw -> String in
            var h = SHA256()
            h.update(raw)
            return Hex.encode(h.finalize())
        }
        if digest != info.sha256.lowercased() {
            problems.append("sha256 is \(digest), manifest says \(info.sha256)")
        }
        let decoded = bytes.withUnsafeBytes { raw in Result { () throws(AudioDecodeError) in try AudioDecoder.decode(raw) } }
        let verdict: AudioVerdict
        switch decoded {
        case let .success(audio): verdict = AudioAnalysis.assess(audio, declaredContentType: info.contentType)
        case let .failure(error): verdict = AudioVerdict(quality: .unreadable, features: nil, detail: error.description)
        }
        let clip = Clip(info: info, bytes: bytes, range: 0..<bytes.count, verdict: verdict)
        switch (decoded, info.clipClass.decodes) {
        case let (.success(audio), true):
            problems += decodedProblems(audio, info)
        case let (.failure(error), true):
            problems.append("does not decode (\(error))")
        case let (.success(audio), false):
            problems.append("class \(info.clipClass.rawValue) is meant not to decode, but it decodes as \(audio.container.rawValue)/\(audio.subtype), \(audio.durationMs) ms")
        case let (.failure(error), false):
            let wanted: AudioDecodeError.Kind = info.clipClass == .empty ? .empty : .truncated
            if error.kind != wanted {
                problems.append("class \(info.clipClass.rawValue) should fail to decode as \(wanted.rawValue), but fails as \(error)")
            }
        }
        return done(clip)
    }

    private static func fieldProblems(_ info: ClipInfo) -> [String] {
        var p: [String] = []
        if info.language.isEmpty { p.append("language is empty") }
        if info.round != 1 && info.round != 2 { p.append("round is \(info.round), expected 1 or 2") }
        if info.namedContainer == .other { p.append("format '\(info.format)' is not flac, opus, wav or mp3") }
        if AudioContainer.declared(by: info.contentType) != info.namedContainer {
            p.append("content_type \(info.contentType) does not match format \(info.format)")
        }
        if info.durationMs < 0 { p.append("duration_ms is negative") }
        if info.sha256.count != 64 { p.append("sha256 '\(info.sha256)' is not 64 hex digits") }
        return p
    }

    private static func decodedProblems(_ audio: DecodedAudio, _ info: ClipInfo) -> [String] {
        var p: [String] = []
        // From frames, not `durationMs` (which rounds down), to compare like the generator does.
        let ms = Int((Double(audio.frames) * 1000 / Double(audio.sampleRate)).rounded())
        if abs(ms - info.durationMs) > durationToleranceMs {
            p.append("decodes to \(ms) ms, manifest says \(info.durationMs) ms (tolerance \(durationToleranceMs) ms)")
        }
        if audio.sampleRate != info.sampleRate { p.append("sample rate is \(audio.sampleRate) Hz, manifest says \(info.sampleRate)") }
        if audio.channels != info.channels { p.append("has \(audio.channels) channels, manifest says \(info.channels)") }
        if info.clipClass == .mismatch {
            if audio.container == info.namedContainer {
                p.append("class mismatch should hold bytes of another format than \(info.format), but they are \(audio.container.rawValue)")
            }
        } else if audio.container != info.namedContainer {
            p.append("bytes are \(audio.container.rawValue)/\(audio.subtype), the name says \(info.format)")
        }
        return p
    }
}

/// Per-clip results written from concurrent checks, behind one Mutex.
private final class LoadResults: Sendable {
    private let state: Mutex<(slots: [(Clip?, [CorpusError.Problem])], remembered: Int)>

    init(count: Int) { state = Mutex((Array(repeating: (nil, []), count: count), 0)) }
    func set(_ i: Int, _ value: (Clip?, [CorpusError.Problem]), remembered r: Bool = false) {
        state.withLock { s in s.slots[i] = value; if r { s.remembered += 1 } }
    }
    var rememberedCount: Int { state.withLock { $0.remembered } }
    var all: [(Clip?, [CorpusError.Problem])] { state.withLock { $0.slots } }
}
