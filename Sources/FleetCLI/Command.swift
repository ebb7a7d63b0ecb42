import FleetCore
import FleetRunner
/// The CLI is a thin shell: each subcommand is one type in its own file that parses its arguments
/// and calls a library. Process globals (stdout, exit, signals) are touched only in `main.swift`
/// of the `fleet` executable and in `FleetCLI.main`, so that tests can run any command in memory.
public protocol FleetCommand {
    /// The word after `fleet` (`run`, `stack`, `profile`, …).
    static var name: String { get }
    /// One line for `fleet help`.
    static var summary: String { get }
    /// Runs with the arguments after the command word; returns the process exit code.
    static func run(_ arguments: [String], io: CommandIO) throws -> Int32
}

/// Where a command writes. The real CLI binds these to stdout/stderr; tests capture them.
public struct CommandIO: Sendable {
    public var out: @Sendable (String) -> Void
    public var err: @Sendable (String) -> Void

    public init(out: @escaping @Sendable (String) -> Void, err: @escaping @Sendable (String) -> Void) {
        self.out = out
        self.err = err
    }
}

// Exit codes: FleetCore.ExitCode, the one table (documented in the README).

/// A usage problem that names exactly what was wrong; reported as one line, exit 2.
public struct UsageError: Error, CustomStringConvertible {
    public let description: String
    public init(_ message: String) { description = message }
}

/// Small helpers for flag parsing shared by the commands.
public struct ArgumentReader {
    private var args: [String]
    public private(set) var positional: [String] = []

    public init(_ arguments: [String]) { args = arguments }

    /// Takes `--name VALUE` or `--name=VALUE` (or `-n VALUE` when `short` is given).
    public mutating func option(_ name: String, short: String? = nil) throws -> String? {
        var i = 0
        while i < args.count {
            let a = args[i]
            if a == "--\(name)" || (short != nil && a == "-\(short!)") {
                guard i + 1 < args.count else { throw UsageError("\(a): expected a value") }
                let v = args[i + 1]
                args.removeSubrange(i...(i + 1))
                return v
            }
            if a.hasPrefix("--\(name)=") {
                args.remove(at: i)
                return String(a.dropFirst(name.count + 3))
            }
            i += 1
        }
        return nil
    }

    public mutating func intOption(_ name: String, short: String? = nil) throws -> Int? {
        guard let v = try option(name, short: short) else { return nil }
        guard let n = Int(v) else { throw UsageError("--\(name): expected an integer, got '\(v)'") }
        return n
    }

    public mutating func doubleOption(_ name: String, short: String? = nil) throws -> Double? {
        guard let v = try option(name, short: short) else { return nil }
        guard let n = Double(v) else { throw UsageError("--\(name): expected a number, got '\(v)'") }
        return n
    }

    /// Takes a boolean `--name` flag.
    public mutating func flag(_ name: String) -> Bool {
        if let i = args.firstIndex(of: "--\(name)") { args.remove(at: i); return true }
        return false
    }

    /// Everything left must be positional; an unknown flag is an error naming it.
    public mutating func finish() throws -> [String] {
        if let unknown = args.first(where: { $0.hasPrefix("-") && $0 != "-" }) {
            throw UsageError("unknown option '\(unknown)'")
        }
        positional = args
        return args
    }
}

/// Runs a long command's body to its exit code: bad input found once it began
/// (`RunnerError.badInput`, already naming its file or flag) is exit 2, anything else thrown
/// exit 1 with `fleet NAME: error`.
func exitCode(of name: String, io: CommandIO, _ body: @escaping @Sendable () async throws -> Int32) -> Int32 {
    BlockingTask.run {
        do {
            return try await body()
        } catch let e as RunnerError where e.isBadInput {
            io.err(e.description)
            return ExitCode.usage
        } catch {
            io.err("fleet \(name): \(error)")
            return ExitCode.failure
        }
    }
}
