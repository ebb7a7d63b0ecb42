import FleetClient
import FleetCore

/// Flow 6, offline mid-upload: a daily quest whose PUT of one round is cut at a random byte; the
/// user is offline for the profile's offline time; back online the presign is requested again
/// when it expired (same Idempotency-Key), the file is put again and submitted, and the quest
/// goes on. The recording loop does the work (`cutAndReconnect`); this picks the round.
public struct OfflineUpload: Journey {
    public let name = JourneyName.offlineUpload.rawValue
    public var keys: JourneyKeys { .quest + JourneyKeys(decisions: ["cut_round2"]) }
    /// The round whose upload is cut; nil lets the user's generator choose (round 2 with
    /// `offlineUpload.cut_round2`, default 0.5).
    public let cutRound: Int?

    public init(cutRound: Int? = nil) {
        self.cutRound = cutRound
    }

    @inline(never)  // async steps are not inlined: see VirtualUser (frames)
    public func walk(_ user: VirtualUser) async throws(JourneyStop) {
        let round = cutRound ?? (user.decide("cut_round2", default: 0.5) ? 2 : 1)
        try await user.launch()
        let home = try await user.openHome()
        guard let article = home.questArticleId else { throw .abandoned(step: "home", reason: "no_quest") }
        try await user.think("home")
        let session = try await user.startSession(articleId: article, kind: "daily")
        try await user.playSession(session, cutRound: round)
        try await user.think("back_home")
        _ = try await user.openHome()
    }
}
