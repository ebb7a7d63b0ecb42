import FleetCore
import FleetHTTP
import FleetJourneys
import FleetRunner

/// `fleet capacity --profile FILE [--target URL] [--max-duration S] [--out DIR] [--seed N] [--allow-remote]`
public enum CapacityCommand: FleetCommand {
    public static let name = "capacity"
    public static let summary = "search the highest sustainable arrival rate (adaptive steps scored against the profile's SLOs)"

    public static func run(_ arguments: [String], io: CommandIO) throws -> Int32 {
        var a = ArgumentReader(arguments)
        guard let profilePath = try a.option("profile", short: "p") else { throw UsageError("--profile FILE is required") }
        let target = try a.option("target")
        let out = try a.option("out")
        let seed = try a.intOption("seed")
        let maxDuration = try a.doubleOption("max-duration") ?? 600
        let allowRemote = a.flag("allow-remote")
        if !(try a.finish()).isEmpty { throw UsageError("unexpected argument '\(a.positional[0])'") }
        guard maxDuration > 0 else { throw UsageError("--max-duration: expected seconds > 0") }

        var json: JSONValue
        let profile: Profile
        do {
            json = try Profile.readJSON(path: profilePath)
            if let s = seed {
                guard s >= 0 else { throw UsageError("--seed: expected a non-negative integer") }
                json = json.setting("seed", .number(Double(s)))
            }
            profile = try Profile.parse(json, file: profilePath)
        } catch let e as ProfileError {
            io.err(e.description)
            return ExitCode.usage
        }
        var options = RunOptions(profile: profile)
        options.profileJSON = json
        options.target = target
        if let out { options.outDir = out }
        options.allowRemote = allowRemote
        let corpusDir = profile.corpusDir
        let recordings: @Sendable () throws -> any RecordingSource = {
            do { return try CorpusRecordings.load(directory: corpusDir) } catch {
                throw RunnerError.badInput("\(profilePath): corpus.dir: \(error)")
            }
        }
        // A run's automatic connection cap follows the open-file limit (ConnectionBudget).
        ConnectionBudget.raiseOpenFileLimit()
        let search = CapacityRun(options: options, maxDurationS: maxDuration,
                                 launcher: ChildProcessStackLauncher(executable: SelfExecutable.path()),
                                 recordings: recordings, say: io.out)
        return SignalBridge.withInterrupts({ search.interrupt() }) {
            exitCode(of: "capacity", io: io) { try await search.run().exitCode }
        }
    }
}
