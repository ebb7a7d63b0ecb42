import FleetCheck
import FleetClient
import FleetCore

/// The amplifiers' actions. They make requests like any step; what the answers mean is the
/// checker's business (`FleetCheck`), never theirs.
extension VirtualUser {
    /// Late duplicate: an earlier settled session's complete again, after later settlements.
    @inline(never)  // async steps are not inlined: see VirtualUser (frames)
    func lateDuplicate(after session: String) async {
        guard amplifiers.lateDuplicate > 0, random.chance(amplifiers.lateDuplicate), let checker else { return }
        let earlier = checker.settledSessions.filter { $0 != session }
        guard !earlier.isEmpty else { return }
        let pick = earlier[Int(random.next() % UInt64(earlier.count))]
        reach("late_duplicate")
        _ = await client.complete(session: pick, credentials, intended: MonotonicClock.now(), random: &random)
        nextIntended = MonotonicClock.now()
    }

    /// Kill during complete: the complete goes out, the app dies 0–60 ms later, relaunches and
    /// the normal settlement that follows replays it.
    @inline(never)
    func killDuringComplete(session: String) async throws(JourneyStop) {
        guard amplifiers.killDuringComplete > 0, random.chance(amplifiers.killDuringComplete) else { return }
        reach("kill_during_complete")
        let delayMs = random.unit() * 60
        var sub = random.split()
        let client = self.client, c = credentials
        let doomed = Task { _ = await client.complete(session: session, c, intended: MonotonicClock.now(), random: &sub) }
        _ = await Pause.sleep(seconds: delayMs / 1000)
        doomed.cancel()
        _ = await doomed.value
        try await pause(ms: world.behaviour.relaunchDelay.sample(&random) * world.behaviour.timeScale)
        reach("relaunch")
        try await launch()
    }

    /// Duplicate purchases: the signed transaction just bought, submitted again at once under fresh keys.
    @inline(never)
    func duplicatePurchase(signed: String) async {
        guard amplifiers.duplicatePurchase > 0, random.chance(amplifiers.duplicatePurchase) else { return }
        reach("duplicate_purchase")
        let keys = (0..<amplifiers.duplicatePurchaseCopies).map { _ in newKey() }
        let client = self.client, c = credentials
        var subs = keys.map { _ in random.split() }
        await withTaskGroup(of: Void.self) { group in
            for (i, key) in keys.enumerated() {
                var r = subs[i]
                group.addTask { _ = await client.submitTransaction(signed: signed, key: key, c, intended: MonotonicClock.now(), random: &r) }
            }
        }
        subs.removeAll()
        nextIntended = MonotonicClock.now()
    }

    /// Reads right after a deletion: every session and attempt this user knew, its growth and stats.
    @inline(never)
    func readAfterDelete() async {
        guard amplifiers.readAfterDelete > 0, random.chance(amplifiers.readAfterDelete), let checker else { return }
        reach("read_after_delete")
        for id in checker.knownSessions.suffix(6) {
            _ = await client.session(id, credentials, intended: MonotonicClock.now(), random: &random)
        }
        for id in checker.knownAttempts.suffix(6) {
            _ = await client.attempt(id, credentials, intended: MonotonicClock.now(), random: &random)
            _ = await client.evidenceAudio(attempt: id, credentials, intended: MonotonicClock.now(), random: &random)
        }
        _ = await client.growth(credentials, intended: MonotonicClock.now(), random: &random)
        _ = await client.me(credentials, intended: MonotonicClock.now(), random: &random)
        nextIntended = MonotonicClock.now()
    }

    /// Cross-user probe: other users' ids, read and poked with this user's token (must be 403/404).
    @inline(never)
    public func crossUserProbe() async {
        guard amplifiers.crossUserProbe > 0, random.chance(amplifiers.crossUserProbe), let checker else { return }
        let ids = checker.othersIDs(count: 4)
        guard !ids.isEmpty else { return }
        reach("cross_user_probe")
        for o in ids {
            if o.isAttempt {
                _ = await client.attempt(o.id, credentials, intended: MonotonicClock.now(), random: &random)
                _ = await client.evidenceAudio(attempt: o.id, credentials, intended: MonotonicClock.now(), random: &random)
            } else {
                _ = await client.session(o.id, credentials, intended: MonotonicClock.now(), random: &random)
                _ = await client.readingComplete(o.id, credentials, intended: MonotonicClock.now(), random: &random)
            }
        }
        nextIntended = MonotonicClock.now()
    }
}

extension SeededRandom {
    /// A generator of its own for a concurrent side task, drawn from this one (deterministic).
    mutating func split() -> SeededRandom { SeededRandom(seed: next(), stream: next()) }
}
