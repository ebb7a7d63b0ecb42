import FleetCore

/// Flow 1's calls: topics, onboarding answers, push token, the plan, and the retry of a failed
/// assessment (the paywall and purchases are in `APIClient+Subscriptions.swift`).
extension APIClient {
    /// `GET /topics` → the topic ids and names the scenario step and the library filter offer.
    public func topics(_ c: Credentials, intended: UInt64, random: inout SeededRandom) async -> Result<[TopicInfo], APIError> {
        await typedCall(.getTopics, path: "/topics", c, intended, &random) { j in
            j["topics"]?.array.map { $0.compactMap(TopicInfo.init) }
        }
    }

    /// `POST /onboarding` with the six answers → the diagnostic session and its article.
    public func onboarding(_ answers: OnboardingAnswers, _ c: Credentials, intended: UInt64,
                           random: inout SeededRandom) async -> Result<OnboardingResult, APIError> {
        await typedCall(.postOnboarding, path: "/onboarding", body: answers.json, c, intended, &random, OnboardingResult.init)
    }

    /// `PUT /me/push-token` → 204 (notifications allowed at the priming step).
    public func pushToken(_ token: String, _ c: Credentials, intended: UInt64, random: inout SeededRandom) async -> Result<Void, APIError> {
        await call(.putPushToken, path: "/me/push-token", body: ["token": .string(token)], credentials: c,
                   intended: intended, random: &random).map { _ in () }
    }

    /// `GET /plan` → the plan's days; `404 plan_not_ready` (retryable) while the plan job runs.
    public func plan(_ c: Credentials, intended: UInt64, random: inout SeededRandom) async -> Result<PlanInfo, APIError> {
        await typedCall(.getPlan, path: "/plan", c, intended, &random, PlanInfo.init)
    }

    /// `POST /attempts/{id}/retry` → 202 Attempt (a `failed`, retryable attempt is assessed again, no re-upload).
    public func retryAttempt(_ id: String, _ c: Credentials, intended: UInt64, random: inout SeededRandom) async -> Result<AttemptInfo, APIError> {
        await typedCall(.retryAttempt, path: CallPath("/attempts/", id, "/retry"), c, intended, &random, AttemptInfo.init)
    }
}

public struct TopicInfo: Sendable, Equatable {
    public var id: String
    public var name: String

    public init?(_ j: JSONValue) {
        guard let id = j["id"]?.string else { return nil }
        self.id = id
        name = j["name"]?.string ?? id
    }
}

/// The six onboarding answers, held locally until the notification-priming step submits them.
public struct OnboardingAnswers: Sendable, Equatable {
    public var practiceLanguage: String
    public var goal: String
    public var scenario: String
    public var topics: [String]
    public var selfLevel: String
    public var commitmentMinutes: Int
    /// `HH:MM` local time.
    public var reminderTime: String

    public init(practiceLanguage: String, goal: String, scenario: String, topics: [String], selfLevel: String,
                commitmentMinutes: Int, reminderTime: String) {
        self.practiceLanguage = practiceLanguage
        self.goal = goal
        self.scenario = scenario
        self.topics = topics
        self.selfLevel = selfLevel
        self.commitmentMinutes = commitmentMinutes
        self.reminderTime = reminderTime
    }

    public var json: JSONValue {
        ["commitment_minutes": .number(Double(commitmentMinutes)), "goal": .string(goal),
         "practice_language": .string(practiceLanguage), "reminder_time": .string(reminderTime), "scenario": .string(scenario),
         "self_level": .string(selfLevel), "topics": .array(topics.map { .string($0) })]
    }
}

public struct OnboardingResult: Sendable {
    public var session: SessionInfo
    public var articleId: String

    public init?(_ j: JSONValue) {
        guard let s = j["diagnostic_session"].flatMap(SessionInfo.init) else { return nil }
        session = s
        articleId = j["article"]?["id"]?.string ?? s.articleId
    }
}

public struct PlanInfo: Sendable {
    /// Article id of each day, day 1 first.
    public var articleIds: [String]

    public init?(_ j: JSONValue) {
        guard let days = j["days"]?.array else { return nil }
        articleIds = days.compactMap { $0["article_id"]?.string }
    }
}
