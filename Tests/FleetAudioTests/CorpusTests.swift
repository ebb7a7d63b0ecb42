import FleetAudio
@testable import FleetCorpus
import FleetCore
import Foundation
import XCTest

/// The committed corpus, loaded once for all tests of this file (loading decodes every clip).
private let committed: Result<Corpus, CorpusError> = Result { () throws(CorpusError) in
    try Corpus.load(directory: CorpusTests.corpusDirectory)
}

final class CorpusTests: XCTestCase {
    static let corpusDirectory: String = {
        // Tests/FleetAudioTests/CorpusTests.swift → repository root.
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.appendingPathComponent("audio-corpus").path
    }()

    func testCommittedCorpusLoadsAndEveryClipAssessesAsMarked() throws {
        let corpus = try committed.get()
        XCTAssertEqual(corpus.expectationProblems(), [])
        XCTAssertLessThan(corpus.totalBytes, 20_000_000, "the committed corpus must stay under 20 MB")
        for language in ["en", "zh"] {
            let speech = corpus.clips(language: language, clipClass: .speech)
            XCTAssertGreaterThanOrEqual(speech.count, 40, language)
            XCTAssertFalse(speech.filter { $0.round == 1 }.isEmpty, language)
            XCTAssertFalse(speech.filter { $0.round == 2 }.isEmpty, language)
            XCTAssertEqual(Set(speech.map(\.info.format)), ["flac", "opus"], language)
            for c in ClipClass.allCases {
                XCTAssertFalse(corpus.clips(language: language, clipClass: c).isEmpty, "\(language) has no \(c.rawValue) clip")
            }
            let durations = speech.map(\.durationMs)
            XCTAssertGreaterThanOrEqual(durations.min() ?? 0, 5_000, language)
            XCTAssertLessThanOrEqual(durations.max() ?? .max, 90_000, language)
        }
        XCTAssertEqual(Set(corpus.clips.map(\.info.expectedOutcome)), Set(ExpectedOutcome.allCases))
    }

    func testClipsShareTheirBytesAndMatchTheirHash() throws {
        let corpus = try committed.get()
        let clip = corpus.clips.first { $0.clipClass == .speech }!
        XCTAssertEqual(SHA256.hex(clip.bytes.copyBytes(clip.range)), clip.sha256)
        XCTAssertEqual(clip.sizeBytes, clip.info.sizeBytes)
        var random = SeededRandom(seed: 1)
        let a = corpus.pick(language: clip.language, round: clip.round, classMix: ["speech": 1], using: &random)
        let again = corpus.clips.first { $0.file == a.file }!
        XCTAssertTrue(a.bytes === again.bytes, "picking hands out the one loaded buffer, never a copy")
    }

    func testPickIsSeededAndFollowsTheMix() throws {
        let corpus = try committed.get()
        let mix = ["speech": 0.9, "silence": 0.1, "no_such_class": 5, "clipped": 0]
        func draw(_ seed: UInt64) -> [Clip] {
            var random = SeededRandom(seed: seed)
            return (0..<2000).map { _ in corpus.pick(language: "zh", round: 2, classMix: mix, using: &random) }
        }
        let first = draw(42)
        XCTAssertEqual(first.map(\.file), draw(42).map(\.file), "same seed, same clips")
        XCTAssertNotEqual(first.map(\.file), draw(43).map(\.file))
        XCTAssertTrue(first.allSatisfy { $0.language == "zh" })
        // A server's code is matched by primary subtag: `zh-Hans` sessions record the `zh` clips.
        var hans = SeededRandom(seed: 42)
        XCTAssertEqual((0..<2000).map { _ in corpus.pick(language: "zh-Hans", round: 2, classMix: mix, using: &hans).file },
                       first.map(\.file))
        XCTAssertEqual(Set(corpus.clips(language: "ZH-hans-CN").map(\.file)), Set(corpus.clips(language: "zh").map(\.file)))
        XCTAssertFalse(corpus.clips(language: "zh").isEmpty)
        XCTAssertTrue(first.allSatisfy { $0.clipClass == .speech || $0.clipClass == .silence })
        let silent = first.filter { $0.clipClass == .silence }.count
        XCTAssertEqual(Double(silent) / 2000, 0.1, accuracy: 0.025)
        XCTAssertTrue(first.filter { $0.clipClass == .speech }.allSatisfy { $0.round == 2 })
        XCTAssertGreaterThan(Set(first.map(\.file)).count, 15, "speech clips are spread, not one favourite")
        // A class with no clip in the requested round comes from the other round.
        var random = SeededRandom(seed: 7)
        let short = corpus.pick(language: "en", round: 2, classMix: ["short": 1], using: &random)
        XCTAssertEqual(short.clipClass, .short)
    }

    /// `pick` looks its candidates up in an index built with the corpus; it must draw exactly what
    /// the plain definition draws from the same generator state: the language's clips (every clip
    /// when it has none), a class by weight among the mix's classes it has (in name order, via
    /// `weightedIndex`), then a clip of that class and round, of that class, or of the pool.
    func testPickDrawsWhatThePlainDefinitionDraws() throws {
        let corpus = try committed.get()
        func reference(_ language: String, _ round: Int, _ mix: [String: Double], _ random: inout SeededRandom) -> Clip {
            let want = LanguageTag.primary(language)
            let ofLanguage = want.isEmpty ? [] : corpus.clips.filter { LanguageTag.primary($0.language) == want }
            let pool = ofLanguage.isEmpty ? corpus.clips : ofLanguage
            var classes: [ClipClass] = [], weights: [Double] = []
            for name in mix.keys.sorted() {
                guard let w = mix[name], w > 0, let c = ClipClass(rawValue: name), pool.contains(where: { $0.clipClass == c }) else { continue }
                classes.append(c); weights.append(w)
            }
            let chosen = classes.isEmpty ? nil : classes[random.weightedIndex(weights)]
            let ofClass = pool.filter { $0.clipClass == (chosen ?? .speech) }
            let inRound = ofClass.filter { $0.round == round }
            let candidates = !inRound.isEmpty ? inRound : !ofClass.isEmpty ? ofClass : pool
            return candidates[min(candidates.count - 1, Int(random.unit() * Double(candidates.count)))]
        }
        let mixes: [[String: Double]] = [
            ["speech": 1], ["speech": 0.9, "silence": 0.1, "no_such_class": 5, "clipped": 0],
            ["short": 1], ["long": 2, "stereo": 1, "empty": 0.5, "mismatch": 0.25, "truncated": -1],
            [:], ["nothing": 1], ["speech": 0], Dictionary(uniqueKeysWithValues: ClipClass.allCases.map { ($0.rawValue, 1.0) }),
        ]
        for language in ["en", "zh-Hans", "EN_gb", "xx", ""] {
            for round in [1, 2, 3] {
                for (m, mix) in mixes.enumerated() {
                    var a = SeededRandom(seed: UInt64(31 * round + m)), b = a
                    for _ in 0..<40 {
                        XCTAssertEqual(corpus.pick(language: language, round: round, classMix: mix, using: &a).file,
                                       reference(language, round, mix, &b).file, "\(language) round \(round) mix \(mix)")
                    }
                    XCTAssertEqual(a.next(), b.next(), "the generator advanced alike")
                }
            }
        }
    }

    /// Clips are indexed by primary subtag, ASCII case folded, so a session's language finds
    /// them however either side spells the tag; a non-ASCII subtag is folded as LanguageTag folds it.
    func testClipsAreFoundByPrimarySubtagWhateverTheSpelling() throws {
        XCTAssertEqual(Corpus.languageKey("EN-us"), "en")
        XCTAssertEqual(Corpus.languageKey("en_GB"), "en")
        XCTAssertEqual(Corpus.languageKey("zh"), "zh")
        XCTAssertEqual(Corpus.languageKey("-x"), "")
        XCTAssertEqual(Corpus.languageKey("ÉS-x"), "és")
        let corpus = try committed.get()
        for language in Set(corpus.clips.map { LanguageTag.primary($0.language) }) {
            var random = SeededRandom(seed: 3)
            for asked in [language, language.uppercased() + "-XX", language + "_yy"] {
                let clip = corpus.pick(language: asked, round: 1, classMix: ["speech": 1], using: &random)
                XCTAssertEqual(LanguageTag.primary(clip.language), language, asked)
            }
        }
    }

    func testClassMixProblemsNameTheKey() {
        XCTAssertEqual(Corpus.problems(inClassMix: ["speech": 0.98, "silence": 0.02]), [])
        let p = Corpus.problems(inClassMix: ["speach": 1, "silence": -1])
        XCTAssertEqual(p.count, 2)
        XCTAssertTrue(p[0].hasPrefix("clip_mix.silence:") && p[1].hasPrefix("clip_mix.speach: unknown class"), "\(p)")
    }

    func testDamagedCopyFailsWithEveryProblemListed() throws {
        let corpus = try committed.get()
        let dir = try CorpusCopies.make(of: corpus, files: [
            corpus.clips.first { $0.clipClass == .speech && $0.info.format == "flac" }!,
            corpus.clips.first { $0.clipClass == .speech && $0.info.format == "opus" }!,
            corpus.clips.first { $0.clipClass == .stereo }!,
            corpus.clips.first { $0.clipClass == .truncated }!,
            corpus.clips.first { $0.clipClass == .silence }!,
        ])
        defer { try? FileManager.default.removeItem(atPath: dir.path) }
        var infos = try loadInfos(dir)
        // 1. a flipped byte in the middle of the FLAC reading;
        try flipByte(in: dir.appendingPathComponent(infos[0].file))
        // 2. the Opus file deleted;
        try FileManager.default.removeItem(at: dir.appendingPathComponent(infos[1].file))
        // 3. a wrong duration for the stereo clip;
        infos[2].durationMs += 700
        // 4. the truncated clip replaced by a whole, decodable one (with a matching hash and size).
        let whole = try Data(contentsOf: dir.appendingPathComponent(infos[4].file))
        try whole.write(to: dir.appendingPathComponent(infos[3].file))
        infos[3].sha256 = SHA256.hex([UInt8](whole))
        infos[3].sizeBytes = whole.count
        try CorpusCopies.writeManifest(infos, to: dir)

        XCTAssertThrowsError(try Corpus.load(directory: dir.path)) { error in
            guard let e = error as? CorpusError else { return XCTFail("\(error)") }
            XCTAssertEqual(e.badFiles, Array(infos[0...3].map(\.file)), e.description)
            let text = e.description
            XCTAssertTrue(text.contains("\(infos[0].file): sha256 is"), text)
            XCTAssertTrue(text.contains("\(infos[1].file): file is missing"), text)
            XCTAssertTrue(text.contains("\(infos[2].file): decodes to"), text)
            XCTAssertTrue(text.contains("\(infos[3].file): class truncated is meant not to decode"), text)
            XCTAssertFalse(text.contains(infos[4].file), "the untouched clip is not listed")
        }
    }

    func testManifestErrorsNameTheFieldAndMissingManifest() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fleet-corpus-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        XCTAssertThrowsError(try Corpus.load(directory: dir.path)) { error in
            XCTAssertEqual((error as? CorpusError)?.problems.first?.description, "manifest.json: missing or unreadable")
        }
        let json = #"{"version": 1, "clips": [{"file": "a.flac", "language": "en", "article_id": "x", "round": 1, "#
            + #""sample_rate": 16000, "channels": 1, "format": "flac", "content_type": "audio/flac", "size_bytes": 1, "#
            + #""sha256": "00", "class": "speech", "expected_outcome": "assessed"}]}"#
        try Data(json.utf8).write(to: dir.appendingPathComponent("manifest.json"))
        XCTAssertThrowsError(try Corpus.load(directory: dir.path)) { error in
            XCTAssertEqual((error as? CorpusError)?.problems.first?.description, "manifest.json: clips[0].duration_ms: missing")
        }
    }

    // MARK: Helpers

    private func loadInfos(_ dir: URL) throws -> [ClipInfo] {
        struct Manifest: Decodable { var clips: [ClipInfo] }
        return try JSONDecoder().decode(Manifest.self, from: Data(contentsOf: dir.appendingPathComponent("manifest.json"))).clips
    }

    private func flipByte(in url: URL) throws {
        var bytes = [UInt8](try Data(contentsOf: url))
        bytes[bytes.count / 2] ^= 0xFF
        try Data(bytes).write(to: url)
    }
}
