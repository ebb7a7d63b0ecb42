/// The exit codes of every `fleet` command: one table, here, used by the CLI and the runner, and
/// repeated in the README. When several hold for a run, the first of 98, 99, 97 wins.
public enum ExitCode {
    public static let success: Int32 = 0
    /// A run or command failed for a reason that is not the user's input (target unreachable, I/O).
    public static let failure: Int32 = 1
    /// Bad input: a missing or invalid profile, flag, corpus or results file.
    public static let usage: Int32 = 2
    /// A metric got worse than the baseline beyond the noise.
    public static let regression: Int32 = 97
    /// An invariant of the contract was violated (`violations.csv`); also `fleet replay` reproducing one.
    public static let invariantViolated: Int32 = 98
    /// The run completed but at least one threshold failed.
    public static let thresholdsFailed: Int32 = 99
    /// The run was interrupted (Ctrl-C / SIGTERM); the report was still written.
    public static let interrupted: Int32 = 130

    /// A finished run's status: interrupted first (the run did not finish), then 98, 99, 97.
    public static func of(interrupted: Bool, violated: Bool = false, thresholdsFailed: Bool, regressed: Bool = false) -> Int32 {
        if interrupted { return self.interrupted }
        if violated { return invariantViolated }
        if thresholdsFailed { return self.thresholdsFailed }
        if regressed { return regression }
        return success
    }
}
