import FleetClient
import FleetCore

/// Flow 3: free practice from the library.
///
/// Topics and the article list, filter chips (language, topic; an empty filter is cleared), a
/// locked row shows its `unlock_hint` as a toast and creates no session, an unlocked row starts a
/// `free` session that runs like the daily quest. Some users practise the same article again
/// within 7 days; the repeat must earn discounted XP (`xp.repeat_discount`), else the journey
/// fails with `repeat_discount_missing`.
public struct FreePractice: Journey {
    public let name = JourneyName.freePractice.rawValue
    public var keys: JourneyKeys {
        .startSession + .session + .microphone
            + JourneyKeys(decisions: ["filter_language", "filter_topic", "tap_locked", "repeat"], thinkTimes: ["library", "toast"])
    }

    public init() {}

    @inline(never)  // async steps are not inlined: see VirtualUser (frames)
    public func walk(_ user: VirtualUser) async throws(JourneyStop) {
        try await user.launch()
        user.reach("library")
        let topics = try user.expect(await user.client.topics(user.credentials, intended: user.nextIntended, random: &user.random))
        var list = try user.expect(await user.client.articles(user.credentials, intended: user.nextIntended, random: &user.random))
        try await user.think("library")

        if user.decide("filter_language", default: 0.6), let language = list.items.first?.language, !language.isEmpty {
            user.reach("library_filtered")
            var filtered = try user.expect(await user.client.articles(language: language, user.credentials,
                                                                       intended: user.nextIntended, random: &user.random))
            if user.decide("filter_topic", default: 0.4), !topics.isEmpty {
                let topic = topics[Int(user.random.next() % UInt64(topics.count))].id
                filtered = try user.expect(await user.client.articles(language: language, topic: topic, user.credentials,
                                                                       intended: user.nextIntended, random: &user.random))
            }
            if filtered.items.contains(where: { !$0.locked }) {
                list = filtered
            } else {
                user.reach("library_filter_empty")  // `--filter-empty` → Clear filter: the first list again
            }
            try await user.think("library")
        }

        if user.decide("tap_locked", default: 0.25), let locked = list.items.first(where: { $0.locked }) {
            // CCR-3: a locked row shows its hint; no session is created.
            user.reach("locked_toast")
            // State matrix: a locked row without `unlock_hint` shows fallback copy; count how often.
            user.world.recorder.count(locked.unlockHint == nil ? .unlockHintMissing : .unlockHintToasts)
            try await user.think("toast")
        }
        let unlocked = list.items.filter { !$0.locked }
        guard !unlocked.isEmpty else { throw .abandoned(step: user.step, reason: "no_unlocked_article") }
        let fresh = unlocked.filter { $0.bestOverall == nil }
        let article = (fresh.isEmpty ? unlocked : fresh)[Int(user.random.next() % UInt64((fresh.isEmpty ? unlocked : fresh).count))]

        let first = try await user.playToSettlement(try await user.startSession(articleId: article.id, kind: "free"),
                                                   micGrant: VirtualUser.practiceMicGrant)
        guard user.decide("repeat", default: 0.3) else { return }
        user.reach("repeat")
        try await user.think("library")
        let again = try await user.playToSettlement(try await user.startSession(articleId: article.id, kind: "free"),
                                                   micGrant: VirtualUser.practiceMicGrant)
        // Only a first settlement that was itself undiscounted (the article never completed before) is a fair baseline.
        if article.bestOverall == nil, again.xpAwarded >= first.xpAwarded, first.xpAwarded > 0 {
            throw .failed(step: "repeat", code: "repeat_discount_missing",
                          message: "repeat within 7 days earned \(again.xpAwarded) XP, the first \(first.xpAwarded)")
        }
    }
}
