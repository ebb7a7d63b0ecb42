import FleetClient
import FleetCore

/// Flow 1's first half: who the user is (`GET /me`), the six onboarding answers, `POST /onboarding`.
extension VirtualUser {
    /// `GET /me`, the account as the app caches it.
    @inline(never)  // async steps are not inlined: see VirtualUser (frames)
    public func fetchMe() async throws(JourneyStop) -> MeInfo {
        try expect(await client.meInfo(credentials, intended: nextIntended, random: &random))
    }

    /// Welcome → language → goal → scenario + topics → self-level → commitment → notification
    /// priming → `POST /onboarding` (and `PUT /me/push-token` when notifications are allowed).
    /// Answers are held locally until the last step, as the app does. Returns the diagnostic.
    @inline(never)
    public func onboard() async throws(JourneyStop) -> OnboardingResult {
        reach("onboarding_welcome")
        try await think("onboarding_welcome")
        // Default practice language follows the device locale; some users pick another one. Both
        // are codes the server listed in `GET /config`.
        let offered = device.languages
        let deviceLanguage = offered.practiceLanguage(forLocale: credentials.locale)
        let other = offered.practiceLanguages.first { $0 != deviceLanguage }
        let language = decide("other_practice_language", default: 0.15) ? other ?? deviceLanguage : deviceLanguage
        reach("onboarding_language")
        try await think("onboarding_step")
        let goal = pick(Onboarding.goals)
        try await think("onboarding_step")

        reach("onboarding_scenario")
        let scenario = pick(Onboarding.scenarios)
        // The topics step is optional: on error the chips are hidden and onboarding goes on.
        var topics: [String] = []
        switch await client.topics(credentials, intended: nextIntended, random: &random) {
        case let .success(list):
            nextIntended = MonotonicClock.now()
            let count = min(list.count, 1 + Int(random.next() % 3))
            var pool = list.map(\.id)
            for _ in 0..<count where !pool.isEmpty { topics.append(pool.remove(at: Int(random.next() % UInt64(pool.count)))) }
        case let .failure(e):
            if e.isAborted { throw stop(for: e) }
            nextIntended = MonotonicClock.now()
        }
        try await think("onboarding_step")
        let level = pick(Onboarding.selfLevels)
        try await think("onboarding_step")
        let minutes = Onboarding.commitments[Int(random.next() % UInt64(Onboarding.commitments.count))]
        let reminder = Onboarding.reminderTimes[Int(random.next() % UInt64(Onboarding.reminderTimes.count))]
        try await think("onboarding_step")

        reach("onboarding_submit")
        let answers = OnboardingAnswers(practiceLanguage: language, goal: goal, scenario: scenario, topics: topics,
                                        selfLevel: level, commitmentMinutes: minutes, reminderTime: reminder)
        let result = try expect(await client.onboarding(answers, credentials, intended: nextIntended, random: &random))
        if decide("allow_notifications", default: 0.6) {
            reach("push_token")
            _ = try expect(await client.pushToken("apns-" + newKey(), credentials, intended: nextIntended, random: &random))
        }
        return result
    }

    private func pick(_ options: [String]) -> String { options[Int(random.next() % UInt64(options.count))] }
}

/// The answer options of the onboarding screens (what the app offers; the stack stores them).
enum Onboarding {
    static let goals = ["travel", "work", "exam", "daily_life"]
    static let scenarios = ["small_talk", "meetings", "presentations", "ordering_food"]
    static let selfLevels = ["beginner", "intermediate", "advanced"]
    static let commitments = [5, 10, 15, 20]
    static let reminderTimes = ["07:30", "08:30", "12:15", "19:00", "21:30"]
}
