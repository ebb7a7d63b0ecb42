/// The named concurrency and time bugs the embedded stack can switch on (README, "Named bugs"),
/// spelled once: settings, `fleet stack --bugs` and `fleet run --bugs` all parse through here.
public enum StackBug: String, CaseIterable, Sendable, Codable {
    case settleRace = "settle-race"
    case dupTransaction = "dup-transaction"
    case streakUTC = "streak-utc"
    case lostSubmit = "lost-submit"
    case staleResume = "stale-resume"

    /// The known names, comma-separated, for error messages.
    public static var knownList: String { allCases.map(\.rawValue).joined(separator: ", ") }

    /// Parses one name; an unknown one is an error listing the known ones.
    public static func parse(_ name: String) throws(StackSettingsError) -> StackBug {
        guard let bug = StackBug(rawValue: name) else {
            throw StackSettingsError("unknown bug '\(name)' (known: \(knownList))")
        }
        return bug
    }

    /// Parses `a,b` as given on a command line.
    public static func parseList(_ text: String) throws(StackSettingsError) -> [StackBug] {
        try text.split(separator: ",").map { name throws(StackSettingsError) in try parse(String(name)) }
    }
}
