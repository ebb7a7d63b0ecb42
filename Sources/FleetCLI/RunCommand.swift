import Dispatch
import FleetCore
import FleetHTTP
import FleetJourneys
import FleetMetrics
import FleetRunner
import FleetStack
#if canImport(Glibc)
import Glibc
#endif

/// `fleet run --profile FILE [--target URL] [--out DIR] [--seed N] [--baseline RESULTS|latest [--force]] [--history PATH]
///  [--junit FILE] [--metrics-listen 127.0.0.1:PORT] [--bugs a,b] [--shard i/N] [--start-at RFC3339] [--source-address ADDR]`
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
        let bugs = try a.option("bugs")
        let shardText = try a.option("shard")
        let startAt = try a.option("start-at")
        let sourceAddress = try a.option("source-address")
        let force = a.flag("force")
        let junit = try a.option("junit")
        let metricsListen = try a.option("metrics-listen")
        if !(try a.finish()).isEmpty { throw UsageError("unexpected argument '\(a.positional[0])'") }

        // Overrides are applied to the profile's JSON, so that the run folder keeps the profile as
        // run (`profile.json`, what `fleet replay` reads) and validation sees them too.
        var json: JSONValue
        let profile: Profile
        do {
            json = try Profile.readJSON(path: profilePath)
            if let s = seed {
                guard s >= 0 else { throw UsageError("--seed: expected a non-negative integer") }
                json = json.setting("seed", .number(Double(s)))
            }
            if let d = duration {
                guard d > 0 else { throw UsageError("--duration: expected seconds > 0") }
                json = json.setting("duration_s", .number(d))
            }
            if let bugs {
                // Named bugs of the embedded stack, switched on for this run (bug-hunting demos and tests);
                // an unknown name is bad input now, not a stack that fails to start.
                let named: [StackBug]
                do { named = try StackBug.parseList(bugs) } catch { throw UsageError("--bugs: \(error)") }
                let stack = (json["stack"] ?? .object([:])).setting("bugs", .array(named.map { .string($0.rawValue) }))
                json = json.setting("stack", stack)
            }
            profile = try Profile.parse(json, file: profilePath)
        } catch let e as ProfileError {
            io.err(e.description)
            return ExitCode.usage
        }
        // A baseline file that cannot be read is bad input now, not after minutes of load.
        if let b = baseline, b != "latest" {
            do { _ = try RunResults.load(path: b) } catch { throw UsageError("--baseline: \(error)") }
        }
        var options = RunOptions(profile: profile)
        options.profileJSON = json
        options.target = target
        if let shardText {
            do { options.shard = try Shard.parse(shardText) } catch { throw UsageError("--shard: \(error)") }
            // With the embedded stack every shard would load a stack of its own: N runs, not one.
            if !options.shard.isWhole && options.effectiveTarget == nil {
                throw UsageError("--shard: the shards of one run need one target (--target URL, e.g. of `fleet stack`); "
                                 + "with the embedded stack each shard would load its own")
            }
        }
        if let startAt {
            guard let ms = RFC3339.parseMillis(startAt) else {
                throw UsageError("--start-at: expected an RFC 3339 time like 2026-12-01T20:00:00Z, got '\(startAt)'")
            }
            options.startAtMillis = ms
        }
        if let sourceAddress {
            guard Loopback.isIPLiteral(sourceAddress) else {
                throw UsageError("--source-address: expected an IP address like 127.0.0.2, got '\(sourceAddress)'")
            }
            options.sourceAddress = sourceAddress
        }
        // The profile as run (file plus overrides, keys sorted): shards of one run share it.
        options.profileDigest = SHA256.hex(json.serializedBytes())
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
                throw RunnerError.badInput("\(profilePath): corpus.dir: \(error)")
            }
        }
        // A run's automatic connection cap follows the open-file limit (ConnectionBudget).
        ConnectionBudget.raiseOpenFileLimit()
        let session = RunSession(options: options, launcher: ChildProcessStackLauncher(executable: SelfExecutable.path()),
                                 recordings: recordings, say: io.out)
        return SignalBridge.withInterrupts({ session.interrupt() }) {
            exitCode(of: "run", io: io) { try await session.run().exitCode }
        }
    }
}
