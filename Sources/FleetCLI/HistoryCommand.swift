import FleetCore
import FleetReport
import Foundation

/// `fleet history [--profile NAME] [--history PATH] [--limit N]`: lists recorded runs, newest last,
/// with their p50/p99 assessment turnaround and settlement.
enum HistoryCommand: FleetCommand {
    static let name = "history"
    static let summary = "list recorded runs with p50/p99 turnaround and settlement (--profile, --history, --limit)"

    static func run(_ arguments: [String], io: CommandIO) throws -> Int32 {
        var args = ArgumentReader(arguments)
        let profile = try args.option("profile")
        let path = try args.option("history") ?? HistoryStore.defaultPath
        let limit = try args.intOption("limit") ?? 20
        guard limit > 0 else { throw UsageError("--limit: expected a positive integer, got \(limit)") }
        let extra = try args.finish()
        guard extra.isEmpty else { throw UsageError("unexpected argument '\(extra[0])'") }
        // Listing must not create an empty database where none was.
        guard FileManager.default.fileExists(atPath: path) else {
            io.out("no runs recorded yet (no history at \(path))")
            return ExitCode.success
        }
        let rows = try HistoryStore(path: path).list(profile: profile, limit: limit)
        guard !rows.isEmpty else {
            io.out(profile.map { "no runs of profile '\($0)' in \(path)" } ?? "no runs in \(path)")
            return ExitCode.success
        }
        io.out(HistoryTable.render(rows))
        return ExitCode.success
    }
}
