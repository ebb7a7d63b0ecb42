import FleetClient
import FleetCore

/// Flow 9: change the UI language and the practice languages.
///
/// Some users first leave today's session in progress. In settings, `PATCH /me` with a new
/// `ui_locale` (or null: follow the device) — every later request carries the new
/// `Accept-Language` and caches are refetched — and/or with a new practice-language list (≥ 1,
/// first = primary), then `GET /home` again. The in-progress session must keep its own
/// `language` (`failed(session_language_changed)` otherwise); some users then finish it.
public struct ChangeLanguages: Journey {
    public let name = "changeLanguages"

    /// `config.supported_*` fallbacks the state matrix prescribes when the config lacks them.
    static let uiLocales = ["en", "zh-Hans"]
    static let practiceLanguages = ["en", "zh"]

    public init() {}

    public func walk(_ user: VirtualUser) async throws(JourneyStop) {
        let deviceLocale = user.credentials.locale
        try await user.launch()
        var inProgress: SessionInfo?
        if user.decide("session_in_progress", default: 0.5) {
            let home = try await user.openHome()
            if let quest = home.questArticleId {
                var s = try await user.startSession(articleId: quest, kind: "daily")
                if s.stage == "reading" {
                    try await user.think("read")
                    s = try user.expect(await user.client.readingComplete(s.id, user.credentials, intended: user.nextIntended,
                                                                           random: &user.random))
                }
                inProgress = s  // left for the settings screen
            }
        }

        user.reach("settings_language")
        let me = try await user.fetchMe()
        try await user.think("settings")
        let changeUI = user.decide("change_ui_locale", default: 0.6)
        if changeUI {
            let current = me.uiLocale ?? (deviceLocale.lowercased().hasPrefix("zh") ? "zh-Hans" : "en")
            let next: String? = user.decide("follow_device", default: 0.2) ? nil : Self.uiLocales.first { $0 != current }
            user.reach("patch_ui_locale")
            let updated = try user.expect(await user.client.patchMe(uiLocale: .some(next), user.credentials,
                                                                    intended: user.nextIntended, random: &user.random))
            guard updated.uiLocale == next else {
                throw .failed(step: "patch_ui_locale", code: "setting_not_applied",
                              message: "ui_locale is \(updated.uiLocale ?? "null"), sent \(next ?? "null")")
            }
            user.credentials.locale = next ?? deviceLocale
            user.reach("refetch")
            _ = try await user.openHome()
            try await user.think("settings")
        }
        if !changeUI || user.decide("change_practice", default: 0.7) {
            let languages = nextPracticeLanguages(me.practiceLanguages, &user.random)
            user.reach("patch_practice_languages")
            let updated = try user.expect(await user.client.patchMe(practiceLanguages: languages, user.credentials,
                                                                    intended: user.nextIntended, random: &user.random))
            guard updated.practiceLanguages == languages else {
                throw .failed(step: "patch_practice_languages", code: "setting_not_applied",
                              message: "practice_languages is \(updated.practiceLanguages), sent \(languages)")
            }
            _ = try await user.openHome()
        }

        guard let session = inProgress else { return }
        user.reach("session_language")
        let now = try user.expect(await user.client.session(session.id, user.credentials, intended: user.nextIntended,
                                                              random: &user.random))
        guard now.language == session.language else {
            throw .failed(step: "session_language", code: "session_language_changed",
                          message: "session \(session.id) was \(session.language), now \(now.language)")
        }
        if user.decide("finish_session", default: 0.3) {
            try await user.playSession(now, micGrant: VirtualUser.practiceMicGrant)
        }
    }

    /// A toggle of the practice-language list: add the other language, swap the primary, or keep
    /// only the other one. Always ≥ 1 language and different from `current`.
    func nextPracticeLanguages(_ current: [String], _ random: inout SeededRandom) -> [String] {
        let primary = current.first ?? "en"
        let other = Self.practiceLanguages.first { $0 != primary } ?? "zh"
        if current.count >= 2 {
            return random.chance(0.5) ? [current[1], current[0]] + current.dropFirst(2) : [primary]
        }
        return random.chance(0.6) ? [primary, other] : [other]
    }
}
