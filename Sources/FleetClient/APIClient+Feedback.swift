import FleetCore

/// The feedback screen's calls (flow 2 step 5): the exemplar, the recorded evidence, the
/// user's verdict on the assessment.
extension APIClient {
    /// `GET /attempts/{id}/exemplar` → `{status: pending|ready|failed, text?, audio_url?}`.
    public func exemplar(attempt: String, _ c: Credentials, intended: UInt64, random: inout SeededRandom) async -> Result<ExemplarInfo, APIError> {
        await typedCall(.getExemplar, path: CallPath("/attempts/", attempt, "/exemplar"), c, intended, &random,
                        ExemplarInfo.init)
    }

    /// `GET /attempts/{id}/audio` → `{url, expires_at}`; `410 gone` once the recording expired.
    public func evidenceAudio(attempt: String, _ c: Credentials, intended: UInt64, random: inout SeededRandom) async -> Result<EvidenceAudio, APIError> {
        await typedCall(.getAttemptAudio, path: CallPath("/attempts/", attempt, "/audio"), c, intended, &random, EvidenceAudio.init)
    }

    /// `POST /assessments/{id}/feedback {helpful, comment?}` → 204.
    public func postFeedback(assessment: String, helpful: Bool, comment: String? = nil, _ c: Credentials, intended: UInt64,
                             random: inout SeededRandom) async -> Result<Void, APIError> {
        var body: JSONObject = ["helpful": .bool(helpful)]
        if let comment { body["comment"] = .string(comment) }
        return await call(.postFeedback, path: CallPath("/assessments/", assessment, "/feedback"), body: .object(body),
                          credentials: c, intended: intended, random: &random).map { _ in () }
    }
}

/// The exemplar of an assessed attempt: pending until the stack has made it.
public struct ExemplarInfo: Sendable {
    public var status: String
    public var text: String?

    public init?(_ j: JSONValue) {
        guard let s = j["status"]?.string else { return nil }
        status = s
        text = j["text"]?.string
    }
}

/// A signed, expiring URL of the user's own recording.
public struct EvidenceAudio: Sendable {
    public var url: String
    public var expiresAtMillis: Int64?

    public init?(_ j: JSONValue) {
        guard let u = j["url"]?.string else { return nil }
        url = u
        expiresAtMillis = j["expires_at"]?.string.flatMap(RFC3339.parseMillis)
    }
}
