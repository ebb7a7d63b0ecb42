import FleetCore
import FleetJourneys
import FleetRunner

/// `fleet replay --run DIR --user K [--target URL] [--repeat M] [--amplify N] [--allow-remote]`
enum ReplayCommand: FleetCommand {
    static let name = "replay"
    static let summary = "re-run one user of a run alone from its seed until its violation shows again (exit 98), or not (0)"

    static func run(_ arguments: [String], io: CommandIO) throws -> Int32 {
        var a = ArgumentReader(arguments)
        guard let dir = try a.option("run") else { throw UsageError("--run DIR (a run folder with results.json and profile.json) is required") }
        guard let user = try a.intOption("user") else { throw UsageError("--user K (a user index from violations.csv) is required") }
        guard user >= 0 else { throw UsageError("--user: expected a non-negative integer") }
        var options = ReplayOptions(runDir: dir, user: user)
        options.target = try a.option("target")
        if let m = try a.intOption("repeat") {
            guard m >= 1 else { throw UsageError("--repeat: expected an integer >= 1") }
            options.repeats = m
        }
        if let n = try a.intOption("amplify") {
            guard n >= 0, n <= 64 else { throw UsageError("--amplify: expected 0 to 64 shadow devices") }
            options.amplify = n
        }
        options.allowRemote = a.flag("allow-remote")
        if !(try a.finish()).isEmpty { throw UsageError("unexpected argument '\(a.positional[0])'") }
        let session = ReplaySession(options: options, launcher: ChildProcessStackLauncher(executable: SelfExecutable.path()),
                                    recordings: { try CorpusRecordings.load(directory: $0) }, say: io.out)
        return exitCode(of: "replay", io: io) { try await session.run() != nil ? ExitCode.invariantViolated : ExitCode.success }
    }
}
