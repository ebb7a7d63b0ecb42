import FleetMetrics

/// A coded walk through one of the app's flows.
///
/// A journey's steps make the requests; its branches ask `user.decide`, its pauses ask
/// `user.think`, so that the profile's data steers it. It ends by returning (completed) or by
/// throwing a `JourneyStop` that says how and where it ended.
public protocol Journey: Sendable {
    /// The name profiles and reports use (`dailyQuest`).
    var name: String { get }
    /// The decisions and think-time names its walk reads (profile validation knows them).
    var keys: JourneyKeys { get }
    func walk(_ user: VirtualUser) async throws(JourneyStop)
}

/// How a journey ended early, and at which step (for the funnel).
public enum JourneyStop: Error, Sendable {
    /// An error the flow treats as fatal for this journey.
    case failed(step: String, code: String, message: String)
    /// The user chose to leave (abandon, leave the paywall, give up polling).
    case abandoned(step: String, reason: String)
    /// The app was killed or the run stopped while the user was here.
    case interrupted(step: String)

    public var step: String {
        switch self {
        case let .failed(s, _, _), let .abandoned(s, _), let .interrupted(s): return s
        }
    }

    public var outcome: JourneyOutcome {
        switch self {
        case .failed: return .failed
        case .abandoned, .interrupted: return .abandoned
        }
    }

    public var code: String? {
        switch self {
        case let .failed(_, c, _): return c
        case let .abandoned(_, r): return r
        case .interrupted: return "interrupted"
        }
    }
}
