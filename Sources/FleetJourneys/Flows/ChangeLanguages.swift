import FleetClient
import FleetCore

/// Flow 9: change the UI language and the practice languages.
///
/// Some users first leave today's session in progress. In settings, `PATCH /me` with a new
/// `ui_locale` (or null: follow the device) — every later request carries the new
/// `Accept-Language` and caches are refetched — and/or with a new practice-language list (≥ 1,
/// first = primary), then `GET /home` again. The in-progress session must keep its own
/// `language` (`failed(session_language_changed)` otherwise); some users then finish it.
/// Every code sent is one `GET /config` listed (`device.languages`, the bundled default when the
/// config lacks the lists); a server offering a single practice language leaves nothing to toggle.
public struct ChangeLanguages: Journey {
    public let name = JourneyName.changeLanguages.rawValue
    public var keys: JourneyKeys {
        .startSession + .session + .microphone
            + JourneyKeys(decisions: ["session_in_progress", "change_ui_locale", "follow_device", "change_practice", "finish_session"],
                          thinkTimes: ["settings"])
    }

    public init() {}

    @inline(never)  // async steps are not inlined: see VirtualUser (frames)
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
            let offered = user.device.languages
            let current = me.uiLocale ?? offered.uiLocale(forLocale: deviceLocale)
            let next: String? = user.decide("follow_device", default: 0.2) ? nil : offered.uiLocales.first { $0 != current }
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
        if !changeUI || user.decide("change_practice", default: 0.7),
           let languages = nextPracticeLanguages(me.practiceLanguages, offered: user.device.languages.practiceLanguages,
                                                 &user.random) {
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

    /// A toggle of the practice-language list: add another offered language, swap the primary, or
    /// keep only the other one. Always ≥ 1 language, all from `offered`, and different from
    /// `current`; nil when `offered` leaves no other choice.
    func nextPracticeLanguages(_ current: [String], offered: [String], _ random: inout SeededRandom) -> [String]? {
        let kept = current.filter { offered.contains($0) }
        let primary = kept.first ?? offered[0]
        if kept.count >= 2 {
            return random.chance(0.5) ? [kept[1], kept[0]] + kept.dropFirst(2) : [primary]
        }
        guard let other = offered.first(where: { $0 != primary }) else { return nil }
        return random.chance(0.6) ? [primary, other] : [other]
    }
}
