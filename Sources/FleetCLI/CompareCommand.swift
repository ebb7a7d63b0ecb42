import FleetCore
import FleetMetrics
import FleetReport
import FleetStats
import Foundation

/// `fleet compare BASE.json NEW.json [--force] [--min-effect F] [--min-abs-ms MS] [--junit FILE]`: percentiles with
/// intervals and verdicts per headline metric and endpoint, rates with a two-proportion test.
/// Exits 97 when a headline figure or rate is worse, 2 when the runs are not like for like.
enum CompareCommand: FleetCommand {
    static let name = "compare"
    static let summary = "compare two results.json with intervals and verdicts; 97 on regression (--force, --min-effect, --junit)"

    static func run(_ arguments: [String], io: CommandIO) throws -> Int32 {
        var args = ArgumentReader(arguments)
        let force = args.flag("force")
        let minEffect = try args.doubleOption("min-effect")
        let minAbs = try args.doubleOption("min-abs-ms")
        let junit = try args.option("junit")
        let files = try args.finish()
        guard files.count == 2 else { throw UsageError("expected two results files: fleet compare BASE.json NEW.json") }
        if let m = minEffect, !(0...1).contains(m) { throw UsageError("--min-effect: expected a fraction in 0…1, got \(m)") }
        let base = try load(files[0]), new = try load(files[1])
        if let m = minAbs, m < 0 { throw UsageError("--min-abs-ms: expected milliseconds >= 0, got \(m)") }
        let comparer = Comparer(minEffect: minEffect ?? new.meta.minEffect ?? 0.05,
                                minAbsoluteMs: minAbs ?? new.meta.minAbsoluteMs ?? 10)
        let c: RunComparison
        do { c = try comparer.compare(base: base, new: new, force: force) } catch {
            throw UsageError("\(files[0]) vs \(files[1]): \(error.description)")
        }
        io.out(CompareText.table(c))
        if let junit {
            try JUnitReport.write(JUnitReport.render(new, comparison: c), to: junit)
            io.out("junit: \(junit)")
        }
        return c.regressed ? ExitCode.regression : ExitCode.success
    }

    private static func load(_ path: String) throws -> RunResults {
        do { return try RunResults.load(path: path) } catch let e as MetricsError { throw UsageError(e.description) }
    }
}
