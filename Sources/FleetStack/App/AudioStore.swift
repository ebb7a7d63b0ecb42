import Foundation

/// Uploaded audio as files beside the database (`<db>.audio/<attempt id>`), so that megabytes of
/// audio never pass through the single database queue or bloat the WAL; SQLite keeps only each
/// upload's digest, size and time.
///
/// A PUT is written to a private temporary name first and renamed into place by `commit`, so an
/// upload that is refused (or a process that dies mid-write) never leaves a partial object, and a
/// repeated PUT replaces the object atomically.
struct AudioStore: Sendable {
    let directory: String

    init(databasePath: String) throws {
        directory = databasePath + ".audio"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    private func path(_ attemptID: String) -> String { directory + "/" + AudioStore.safe(attemptID) }

    /// Attempt ids come from the URL; keep only characters that cannot leave the directory.
    private static func safe(_ id: String) -> String {
        String(id.unicodeScalars.filter { CharacterSet.alphanumerics.contains($0) || $0 == "_" || $0 == "-" }.prefix(100))
    }

    /// Writes `bytes` under a temporary name; returns that name for `commit` or `discard`.
    func stage(_ bytes: [UInt8]) throws -> String {
        let temp = directory + "/.part-" + IDs.make("up")
        guard FileManager.default.createFile(atPath: temp, contents: Data(bytes)) else {
            throw APIError.internalError("cannot store the upload")
        }
        return temp
    }

    /// Moves a staged upload into place as the attempt's audio (replacing an earlier one).
    func commit(_ staged: String, attemptID: String) throws {
        guard rename(staged, path(attemptID)) == 0 else {
            discard(staged)
            throw APIError.internalError("cannot store the upload (errno \(errno))")
        }
    }

    func discard(_ staged: String) { unlink(staged) }

    func read(_ attemptID: String) -> [UInt8]? {
        FileManager.default.contents(atPath: path(attemptID)).map { [UInt8]($0) }
    }

    func remove(_ attemptID: String) { unlink(path(attemptID)) }

    /// Removes the directory and everything in it (temporary databases on stop).
    func removeAll() { try? FileManager.default.removeItem(atPath: directory) }
}
