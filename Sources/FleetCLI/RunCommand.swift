import Dispatch
import FleetCore
import FleetJourneys
import FleetMetrics
import FleetRunner
#if canImport(Glibc)
import Glibc
#endif

/// `fleet run --profile FILE [--target URL] [--out DIR] [--seed N] [--baseline RESULTS|latest [--force]] [--history PATH]
///  [--junit FILE] [--metrics-listen 127.0.0.1:PORT]`
public enum RunCommand: FleetCommand {
    public static let name = "run"
    public static let summary = "run a profile's virtual users against a stack and write the report"

    public static func run(_ arguments: [String], io: CommandIO) throws -> Int32 {
        var a = ArgumentReader(arguments)
        guard let profilePath = try a.option("profile", short: "p") else { throw UsageError("--profile FILE is required") }
        let target = try a.option("target")
        let out = try a.option("out")
        let seed = try a.intOption("seed")
        let baseline = try a.option("baseline")
        let history = try a.option("history")
        let duration = try a.doubleOption("duration")
        let allowRemote = a.flag("allow-remote")
        let force = a.flag("force")
        let junit = try a.option("junit")
        let metricsListen = try a.option("metrics-listen")
        if !(try a.finish()).isEmpty { throw UsageError("unexpected argument '\(a.positional[0])'") }

        var profile: Profile
        do { profile = try Profile.load(path: profilePath) } catch {
            io.err(error.description)
            return ExitCode.usage
        }
        if let s = seed {
            guard s >= 0 else { throw UsageError("--seed: expected a non-negative integer") }
            profile.seed = UInt64(s)
        }
        if let d = duration {
            guard d > 0 else { throw UsageError("--duration: expected seconds > 0") }
            profile.durationS = d
        }
        // A baseline file that cannot be read is bad input now, not after minutes of load.
        if let b = baseline, b != "latest" {
            do { _ = try RunResults.load(path: b) } catch { throw UsageError("--baseline: \(error)") }
        }
        var options = RunOptions(profile: profile)
        options.target = target
        if let out { options.outDir = out }
        if let history { options.historyPath = history }
        options.baselinePath = baseline
        options.allowRemote = allowRemote
        options.forceCompare = force
        options.junitPath = junit
        options.metricsListen = metricsListen
        options.progressEveryS = isatty(1) != 0 ? 1 : 5

        let corpusDir = profile.corpusDir
        let recordings: @Sendable () throws -> any RecordingSource = {
            do { return try CorpusRecordings.load(directory: corpusDir) } catch {
                throw RunInputError(description: "\(profilePath): corpus.dir: \(error)")
            }
        }
        let session = RunSession(options: options, launcher: ChildProcessStackLauncher(executable: SelfExecutable.path()),
                                 recordings: recordings, say: io.out)
        return SignalBridge.withInterrupts({ session.interrupt() }) {
            BlockingTask.run {
                do {
                    return try await session.run().exitCode
                } catch let e as RunInputError {
                    io.err(e.description)
                    return ExitCode.usage
                } catch {
                    io.err("fleet run: \(error)")
                    return ExitCode.failure
                }
            }
        }
    }
}
