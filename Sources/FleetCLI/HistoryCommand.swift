import FleetCore
import FleetReport
import FleetStats
import Foundation

/// `fleet history [--profile NAME] [--history PATH] [--limit N] [--changes [--max-p P] [--min-magnitude F]]`:
/// lists recorded runs, newest last, with their p50/p99 assessment turnaround and settlement;
/// with `--changes`, the change points of the profile's headline metrics instead.
enum HistoryCommand: FleetCommand {
    static let name = "history"
    static let summary = "list recorded runs, or their change points with --changes --profile P (--history, --limit)"

    static func run(_ arguments: [String], io: CommandIO) throws -> Int32 {
        var args = ArgumentReader(arguments)
        let profile = try args.option("profile")
        let path = try args.option("history") ?? HistoryStore.defaultPath
        let changes = args.flag("changes")
        let limit = try args.intOption("limit") ?? (changes ? 500 : 20)
        let maxP = try args.doubleOption("max-p") ?? 0.001
        let minMagnitude = try args.doubleOption("min-magnitude") ?? 0.05
        guard limit > 0 else { throw UsageError("--limit: expected a positive integer, got \(limit)") }
        guard maxP > 0, maxP < 1 else { throw UsageError("--max-p: expected a p-value in (0, 1), got \(maxP)") }
        guard minMagnitude >= 0 else { throw UsageError("--min-magnitude: expected a fraction >= 0, got \(minMagnitude)") }
        let extra = try args.finish()
        guard extra.isEmpty else { throw UsageError("unexpected argument '\(extra[0])'") }
        if changes && profile == nil { throw UsageError("--changes needs --profile NAME (change points are per profile)") }
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
        if changes {
            let detector = EDivisive(maxPValue: maxP, minMagnitude: minMagnitude)
            io.out(HistoryChanges.render(HistoryChanges.find(rows, detector: detector), rows: rows))
        } else {
            io.out(HistoryTable.render(rows))
        }
        return ExitCode.success
    }
}
