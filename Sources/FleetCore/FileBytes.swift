#if canImport(Glibc)
import Glibc
#endif

/// Whole-file reads and writes without Foundation, for profiles, manifests and reports.
public enum FileBytes {
    /// The file's bytes, or nil when it cannot be opened or read.
    public static func read(_ path: String) -> [UInt8]? {
        guard let f = fopen(path, "rb") else { return nil }
        defer { fclose(f) }
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = chunk.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, f) }
            if n > 0 { out.append(contentsOf: chunk[0..<n]) }
            if n < chunk.count {
                if ferror(f) != 0 { return nil }
                return out
            }
        }
    }

    /// Writes the file atomically enough for reports: to a temporary name, then rename.
    public static func write(_ bytes: [UInt8], to path: String) throws(FileError) {
        let tmp = path + ".tmp"
        guard let f = fopen(tmp, "wb") else { throw FileError(path: path, reason: String(cString: strerror(errno))) }
        let n = bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, f) }
        let closed = fclose(f)
        guard n == bytes.count, closed == 0 else { throw FileError(path: path, reason: "short write") }
        guard rename(tmp, path) == 0 else { throw FileError(path: path, reason: String(cString: strerror(errno))) }
    }

    public static func exists(_ path: String) -> Bool { access(path, F_OK) == 0 }
}

public struct FileError: Error, CustomStringConvertible {
    public var path: String
    public var reason: String
    public var description: String { "\(path): \(reason)" }
}
