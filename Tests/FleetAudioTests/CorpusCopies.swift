import FleetAudio
import FleetCorpus
import Foundation

/// Copies of a few committed clips with their manifest in a temporary directory, to damage or change.
enum CorpusCopies {
    static func make(of corpus: Corpus, files clips: [Clip]) throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fleet-corpus-\(UUID().uuidString)")
        for clip in clips {
            let target = dir.appendingPathComponent(clip.file)
            try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(clip.bytes.copyBytes(clip.range)).write(to: target)
        }
        try writeManifest(clips.map(\.info), to: dir)
        return dir
    }

    static func writeManifest(_ infos: [ClipInfo], to dir: URL) throws {
        struct Manifest: Encodable { var version = 1; var clips: [ClipInfo] }
        try JSONEncoder().encode(Manifest(clips: infos)).write(to: dir.appendingPathComponent("manifest.json"))
    }

}
