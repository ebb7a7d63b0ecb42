import FleetCore
import FleetHTTP
import FleetRunner

/// `fleet probe upload-memory URL -n USERS [--clip FILE] [--max-uploads N] [--timeout S]`:
/// resident memory of USERS simultaneous uploads of one shared clip (or GETs without `--clip`)
/// through the run's HTTP engine; prints one JSON line (bench/upload-memory.sh reads it).
public enum ProbeCommand: FleetCommand {
    public static let name = "probe"
    public static let summary = "engine measurements (probe upload-memory URL -n USERS [--clip FILE])"
    static let usage = "usage: fleet probe upload-memory URL -n USERS [--clip FILE] [--max-uploads N] [--timeout SECONDS]"

    public static func run(_ arguments: [String], io: CommandIO) throws -> Int32 {
        var a = ArgumentReader(arguments)
        let users = try a.intOption("users", short: "n")
        let clip = try a.option("clip")
        let cap = try a.intOption("max-uploads")
        let timeout = try a.doubleOption("timeout")
        let rest = try a.finish()
        guard rest.count == 2, rest[0] == "upload-memory", let users else { throw UsageError(usage) }
        guard rest[1].lowercased().hasPrefix("http://"), Loopback.isLoopbackURL(rest[1]) else {
            throw UsageError("probe URL must be loopback (http://127.0.0.1:PORT/...), got '\(rest[1])'")
        }
        var options = UploadProbeOptions(url: rest[1], users: users, clipPath: clip)
        options.maxConcurrentUploads = cap
        if let timeout { options.timeoutSeconds = timeout }
        ConnectionBudget.raiseOpenFileLimit(toFit: users)
        let result = try UploadProbe.run(options)  // bad options: `RunnerError.badInput`, exit 2
        io.out(result.json())
        return result.ok == users ? ExitCode.success : ExitCode.failure
    }
}
