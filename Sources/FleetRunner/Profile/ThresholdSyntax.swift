import FleetMetrics

/// Checks a threshold expression when the profile is validated, so that a typo fails before the
/// run, not after it.
enum ThresholdSyntax {
    /// nil when `expression` parses; otherwise what is wrong with it.
    static func problem(_ expression: String) -> String? {
        do {
            _ = try Threshold.parse(expression)
            return nil
        } catch {
            return "\(error)"
        }
    }
}
