import FleetClient

/// The processing screen's recoveries: `unreliable` → re-record, `failed` with `retryable` →
/// `POST /attempts/{id}/retry` (no re-upload), then poll again.
extension VirtualUser {
    /// Records, uploads, submits and polls round `round` until it is assessed, re-recording after
    /// `unreliable` (up to `maxReRecords`) and asking for a retry after a retryable failure (up to
    /// `maxAssessmentRetries`). Anything else ends the journey as failed with `attempt_<status>`.
    /// `cutUpload` loses the network in the middle of the first take's PUT (flow 6). Measures
    /// `assessment_turnaround` on every take (see `poll`).
    public func recordRoundRecovering(session: SessionInfo, round: Int,
                                      cutUpload: Bool = false) async throws(JourneyStop) -> AttemptInfo {
        var reRecords = 0
        var attempt = try await recordAndSubmit(session: session, round: round, cutUpload: cutUpload)
        var retries = 0
        while true {
            switch attempt.status {
            case "assessed":
                return attempt
            case "unreliable" where reRecords < world.behaviour.maxReRecords:
                reRecords += 1
                reach(round: round, "rerecord")
                try await think("rerecord")
                attempt = try await recordAndSubmit(session: session, round: round)
            case "failed" where attempt.retryable && retries < VirtualUser.maxAssessmentRetries:
                retries += 1
                reach(round: round, "retry")
                try await think("retry")
                let again = try expect(await client.retryAttempt(attempt.id, credentials, intended: nextIntended, random: &random))
                attempt = try await poll(attempt: again, round: round)
            default:
                throw .failed(step: step, code: "attempt_\(attempt.status)", message: attempt.reason ?? attempt.status)
            }
        }
    }

    /// Taps on "Retry" after a retryable assessment failure before the user gives up.
    public static let maxAssessmentRetries = 2
}
