#if canImport(Glibc)
import FleetCore
import FleetRunner
import Glibc
#endif

/// The command table and the one entry point the executable calls.
public enum FleetCLI {
    /// Every subcommand. A helper adding a command adds one line here and one file beside it.
    public static var commands: [any FleetCommand.Type] {
        [
            RunCommand.self,
            ReplayCommand.self,
            CapacityCommand.self,
            ProfileCommand.self,
            BlastCommand.self,
            StackCommand.self,
            ReportCommand.self,
            MergeCommand.self,
            CompareCommand.self,
            HistoryCommand.self,
            CorpusCommand.self,
            ProbeCommand.self,
        ]
    }

    /// Runs `fleet ARGS` and returns the exit code; never calls `exit` itself.
    public static func run(_ arguments: [String], io: CommandIO) -> Int32 {
        guard let word = arguments.first, word != "help", word != "--help", word != "-h" else {
            io.out(usage())
            return arguments.isEmpty ? ExitCode.usage : ExitCode.success
        }
        guard let command = commands.first(where: { $0.name == word }) else {
            io.err("fleet: unknown command '\(word)'\n\(usage())")
            return ExitCode.usage
        }
        do {
            return try command.run(Array(arguments.dropFirst()), io: io)
        } catch let e as UsageError {
            io.err("fleet \(word): \(e.description)")
            return ExitCode.usage
        } catch let e as RunnerError where e.isBadInput {
            io.err("fleet \(word): \(e.description)")
            return ExitCode.usage
        } catch {
            io.err("fleet \(word): \(error)")
            return ExitCode.failure
        }
    }

    public static func usage() -> String {
        var s = "usage: fleet COMMAND [OPTIONS]\n\ncommands:\n"
        for c in commands { s += "  " + c.name + String(repeating: " ", count: max(1, 10 - c.name.count)) + c.summary + "\n" }
        return s
    }

    /// The process entry point: binds IO to the real streams and exits with the command's code.
    public static func main() -> Never {
        let io = CommandIO(out: { writeLine($0, to: 1) }, err: { writeLine($0, to: 2) })
        exit(run(Array(CommandLine.arguments.dropFirst()), io: io))
    }

    /// Writes whole lines with write(2): unbuffered, so progress lines reach a pipe at once.
    private static func writeLine(_ s: String, to fd: Int32) {
        var bytes = Array(s.utf8)
        if bytes.last != 10 { bytes.append(10) }
        var off = 0
        while off < bytes.count {
            let n = bytes[off...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if n < 0 { if errno == EINTR { continue }; return }
            off += n
        }
    }
}
