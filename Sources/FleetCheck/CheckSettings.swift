/// How a run checks invariants (profile `checks`).
public struct CheckSettings: Sendable, Equatable {
    /// Off: no observer, no trace rings, no audit (a pure load run, e.g. 200,000 users).
    public var enabled = true
    /// Entries kept per user for its trace (the last ones; written only for violating users).
    public var traceRing = 128
    /// The end-of-run audit polls attempts never seen terminal for at least this long, longer
    /// while the stack is still finishing some, and never past `auditMaxS`.
    public var auditS = 20.0
    public var auditMaxS = 90.0
    /// Bench-to-stack clock difference assumed when the stack sends no `Date` header.
    public var clockSkewToleranceS = 2.0
    /// Rows kept in `violations` (the count of the rest is noted), so a broken stack cannot fill the disk.
    public var maxViolations = 10_000

    public init() {}
}
