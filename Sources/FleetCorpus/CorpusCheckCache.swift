import FleetAudio
import FleetCore
import Foundation

/// What a run remembers of the corpus check between runs, so that a checked corpus starts in
/// well under a second instead of decoding every clip again (`fleet corpus validate` still checks
/// everything). An entry holds for one clip while its size and modification time and the
/// manifest's digest are unchanged; any change re-checks that clip. Only clips that passed are
/// remembered: a bad clip is always checked again and reported.
public struct CorpusCheckCache: Sendable {
    public struct Entry: Codable, Sendable, Equatable {
        public var manifestSHA256: String
        public var sizeBytes: Int
        public var mtimeNanos: Int64
        public var verdict: AudioVerdict
    }

    public let path: String

    public init(path: String) { self.path = path }

    /// `$FLEET_CACHE_DIR`, else `$XDG_CACHE_HOME/fleet`, else `~/.cache/fleet`, one file per corpus directory.
    public static func defaultPath(forCorpus directory: String) -> String {
        let env = ProcessInfo.processInfo.environment
        let base = env["FLEET_CACHE_DIR"] ?? env["XDG_CACHE_HOME"].map { $0 + "/fleet" }
            ?? ((env["HOME"] ?? NSTemporaryDirectory()) + "/.cache/fleet")
        let absolute = URL(fileURLWithPath: directory).standardizedFileURL.path
        return base + "/corpus-check-" + String(SHA256.hex(Array(absolute.utf8)).prefix(16)) + ".json"
    }

    /// The remembered entries; empty when the file is missing or unreadable (then everything is checked).
    public func load() -> [String: Entry] {
        guard let data = FileManager.default.contents(atPath: path),
              let entries = try? JSONDecoder().decode([String: Entry].self, from: data) else { return [:] }
        return entries
    }

    /// Writes the entries atomically; a cache that cannot be written only costs the next start its time.
    public func save(_ entries: [String: Entry]) {
        let dir = (path as NSString).deletingLastPathComponent
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        if let data = try? encoder.encode(entries) { try? data.write(to: URL(fileURLWithPath: path), options: .atomic) }
    }

    /// Size and modification time (nanoseconds) of a file, nil when it cannot be stat'ed.
    /// `lstat` itself, as FileManager's attributes did, without what else they cost: the owner's
    /// and group's names (a read of /etc/passwd and of /etc/group for every clip at every start)
    /// and the extended attributes. The time is the kernel's, to the nanosecond.
    static func stamp(_ path: String) -> (size: Int, mtimeNanos: Int64)? {
        var st = stat()
        guard lstat(path, &st) == 0 else { return nil }
        return (Int(st.st_size), Int64(st.st_mtim.tv_sec) * 1_000_000_000 + Int64(st.st_mtim.tv_nsec))
    }
}
