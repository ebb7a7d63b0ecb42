import Foundation
import FleetMetrics
#if canImport(Glibc)
import Glibc
#endif

/// The run's results, appended to `<run folder>/stream.jsonl` as windows close, so that a run
/// killed without a chance to write its report (`kill -9`, the OOM killer) loses at most the last
/// window: `fleet report --recover DIR` renders the report from the last complete line.
///
/// Each line is a whole snapshot (compact `results.json`), not a delta: one line is then enough to
/// recover, histograms need no replay, and a line torn by the kill is simply skipped. The price is
/// size — a snapshot per window — which for the bounded runs of a test bench is megabytes, not more.
/// Appends go straight to the kernel (`O_APPEND` `write`), so nothing waits in a user-space
/// buffer when the process dies.
public final class ResultStream: @unchecked Sendable {
    // @unchecked: `fd` is immutable; appends come from the run's one monitor task.
    public static let fileName = "stream.jsonl"
    private let fd: Int32
    public let path: String

    public init(directory: String) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        path = (directory as NSString).appendingPathComponent(Self.fileName)
        fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw RunError("\(path): cannot open for appending (errno \(errno))") }
    }

    deinit { close(fd) }

    /// Appends one snapshot as one line; a failed write is reported, not fatal (the run goes on
    /// and still writes its report at the end).
    @discardableResult
    public func append(_ results: RunResults) -> Bool {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        guard var data = try? encoder.encode(results) else { return false }
        data.append(0x0a)
        return data.withUnsafeBytes { raw -> Bool in
            var off = 0
            while off < raw.count {
                let n = write(fd, raw.baseAddress! + off, raw.count - off)
                if n < 0 { if errno == EINTR { continue }; return false }
                off += n
            }
            return true
        }
    }

    /// The last complete snapshot of `directory`'s stream (a torn last line is skipped).
    public static func recover(directory: String) throws -> RunResults {
        let path = (directory as NSString).appendingPathComponent(fileName)
        guard let data = FileManager.default.contents(atPath: path) else {
            throw RunError("\(path): no result stream to recover from (is \(directory) a run folder?)")
        }
        let lines = data.split(separator: 0x0a, omittingEmptySubsequences: true)
        for line in lines.reversed() {
            if let r = try? RunResults.decode(Data(line), source: path) { return r }
        }
        throw RunError("\(path): no complete snapshot in \(lines.count) line(s)")
    }
}
