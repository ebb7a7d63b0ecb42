import FleetCore
import FleetHTTP
import FleetRunner

/// `fleet blast URL [-c N] [-d SECONDS] [-R RATE] [-t THREADS] [--timeout SECONDS]`: wrk-style raw
/// load on one loopback URL through the fleet's own engine and recorder. `--replay RECORDING` sends
/// a request sequence recorded with `FLEET_HTTP_RECORD` instead (URL then only names the target),
/// and `--as-recorded` sends it with the timing it was recorded with, task by task.
public enum BlastCommand: FleetCommand {
    public static let name = "blast"
    public static let summary = "raw load on one loopback URL, wrk-style (blast URL [-c N] [-d S] [-R RATE])"

    public static func run(_ arguments: [String], io: CommandIO) throws -> Int32 {
        var a = ArgumentReader(arguments)
        let connections = try a.intOption("connections", short: "c")
        let duration = try a.doubleOption("duration", short: "d")
        let rate = try a.doubleOption("rate", short: "R")
        let threads = try a.intOption("threads", short: "t")
        let timeout = try a.doubleOption("timeout")
        let replay = try a.option("replay")
        let asRecorded = a.flag("as-recorded")
        let rest = try a.finish()
        guard rest.count == 1 else {
            throw UsageError("usage: fleet blast URL [-c CONNECTIONS] [-d SECONDS] [-R RATE] [-t IO_THREADS] [--timeout SECONDS] [--replay RECORDING [--as-recorded]]")
        }
        var options = BlastOptions(url: rest[0])
        if let connections { options.connections = connections }
        if let duration { options.durationSeconds = duration }
        options.rate = rate
        if let threads { options.ioThreads = threads }
        if let timeout { options.timeoutSeconds = timeout }
        options.replayFile = replay
        options.asRecorded = asRecorded
        ConnectionBudget.raiseOpenFileLimit(toFit: options.connections)
        try options.validate()  // bad options: `RunnerError.badInput`, exit 2
        let report = try Blast.run(options)
        io.out(report.render())
        io.out("Engine levers: \(EngineLevers.current)")
        return report.requests > 0 ? ExitCode.success : ExitCode.failure
    }
}
