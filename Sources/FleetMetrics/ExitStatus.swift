/// Every exit code the bench can give, in one table (documented in the README). It lives here,
/// below every module that decides a run's status, so the runner and the CLI share one table.
public enum ExitStatus {
    public static let success: Int32 = 0
    /// A run or command failed for a reason that is not the user's input (target unreachable, I/O).
    public static let failure: Int32 = 1
    /// Bad input: a missing or invalid profile, flag, corpus or results file.
    public static let usage: Int32 = 2
    /// The run (or `fleet compare`) found a headline metric or rate worse than the baseline.
    public static let regression: Int32 = 97
    /// An invariant of the API was violated.
    public static let invariantViolated: Int32 = 98
    /// The run completed but at least one threshold failed.
    public static let thresholdsFailed: Int32 = 99
    /// The run was interrupted (Ctrl-C / SIGTERM); the report was still written.
    public static let interrupted: Int32 = 130

    /// The one status of a finished run when several hold: interrupted, then 98 > 99 > 97.
    public static func of(interrupted: Bool, violated: Bool = false, thresholdsFailed: Bool, regressed: Bool) -> Int32 {
        if interrupted { return Self.interrupted }
        if violated { return invariantViolated }
        if thresholdsFailed { return Self.thresholdsFailed }
        if regressed { return regression }
        return success
    }
}
