import FleetClient
import FleetCore
import FleetMetrics
import Synchronization

/// The end-of-run audit through the API: settles doubts the run left (completes with no answer
/// are replayed under their key, as the app does on relaunch), reads each user's `/me` and
/// `/home` once more, and polls every submitted attempt never seen terminal. One still not
/// terminal when the audit ends is a `one_terminal_status` violation. Bounded: at least
/// `auditS`, longer while attempts are still finishing, never past `auditMaxS`.
extension FleetChecker {
    /// Returns how many users were re-read and how many the `auditMaxS` bound left out (users with
    /// something in doubt go first, so a bounded audit of a huge run still settles what matters).
    @discardableResult
    public func audit(client: APIClient, say: @Sendable (String) -> Void) async -> (audited: Int, skipped: Int) {
        let signedIn = allUsers.filter { $0.credentials.accessToken != nil }
        guard !signedIn.isEmpty else { return (0, 0) }
        let doubtful = signedIn.filter { !$0.completesInDoubt.isEmpty || !$0.pendingAttempts.isEmpty }
        let users = doubtful + signedIn.filter { $0.completesInDoubt.isEmpty && $0.pendingAttempts.isEmpty }
        let started = MonotonicClock.now()
        let progress = LastProgress(started)
        let next = NextIndex()
        let pending = users.reduce(0) { $0 + $1.pendingAttempts.count }
        // Said at both ends: at 200,000 users the re-reads (two requests a user, 13,000-19,000 a
        // second on a 2-core machine with the stack beside it) took 21-31 s after the planned end.
        say("audit: re-reading \(users.count) users' /me and /home" + (pending > 0 ? ", \(pending) attempts submitted and not yet seen terminal" : "")
            + " (at most \(Int(settings.auditMaxS)) s)")
        let maxNanos = UInt64(settings.auditMaxS * 1e9)
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<min(32, users.count) {
                group.addTask {
                    while MonotonicClock.now() &- started < maxNanos {
                        let i = next.take()
                        guard i < users.count else { return }
                        await self.auditUser(users[i], client: client, started: started, progress: progress)
                    }
                }
            }
        }
        let skipped = max(0, users.count - min(users.count, next.taken))
        say("audit: \(users.count - skipped) users re-read in " + String(format: "%.1f", Double(MonotonicClock.now() &- started) / 1e9) + " s")
        if skipped > 0 {
            say("audit: stopped at audit_max_s (\(Int(settings.auditMaxS)) s) with \(skipped) of \(users.count) users not re-read")
        }
        return (users.count - skipped, skipped)
    }

    private func auditUser(_ u: UserChecker, client: APIClient, started: UInt64, progress: LastProgress) async {
        var random = SeededRandom(seed: seed ^ 0xA0D1_7000, stream: UInt64(truncatingIfNeeded: u.index))
        let c = u.credentials
        await RequestScope.with({ $0.endpointScope = .audit; $0.observer = u }) {
            for s in u.completesInDoubt {
                _ = await client.complete(session: s, c, intended: MonotonicClock.now(), random: &random)
            }
            _ = await client.me(c, intended: MonotonicClock.now(), random: &random)
            _ = await client.home(c, intended: MonotonicClock.now(), random: &random)
            var waiting = u.pendingAttempts
            while !waiting.isEmpty {
                var still: [String] = []
                for id in waiting {
                    switch await client.attempt(id, c, intended: MonotonicClock.now(), random: &random) {
                    case let .success(a) where UserLog.terminalStatuses.contains(a.status):
                        progress.touch()
                    case let .failure(e) where e.status == 404 || e.status == 403 || e.status == 410:
                        u.forgetAttempt(id)  // deleted with its session or the account: nothing to wait for
                    default: still.append(id)
                    }
                }
                waiting = still
                guard !waiting.isEmpty, await Pause.sleep(seconds: 1), !deadlinePassed(started: started, progress: progress) else { break }
            }
            let now = MonotonicClock.now()
            for id in waiting {
                let status = u.attemptStatus(id) ?? "?"
                u.reportAudit(Finding(invariant: .oneTerminalStatus,
                                      detail: "attempt \(id) was submitted (#\(u.submittedSeq(id) ?? 0)) and is still '\(status)' \(String(format: "%.0f", Double(now - started) / 1e9)) s into the end-of-run audit",
                                      seqs: u.submittedSeq(id).map { [$0] } ?? []), at: now)
            }
        }
    }

    private func deadlinePassed(started: UInt64, progress: LastProgress) -> Bool {
        let now = MonotonicClock.now()
        let elapsed = Double(now - started) / 1e9
        if elapsed >= settings.auditMaxS { return true }
        if elapsed < settings.auditS { return false }
        // Past the minimum: go on only while some attempt became terminal in the last 5 s.
        let last = progress.last
        return Double(now - last) / 1e9 > 5
    }
}

/// When an audited attempt last became terminal (shared by the audit's workers).
final class LastProgress: Sendable {
    private let value: Mutex<UInt64>
    init(_ start: UInt64) { value = Mutex(start) }
    func touch() { value.withLock { $0 = max($0, MonotonicClock.now()) } }
    var last: UInt64 { value.withLock { $0 } }
}

/// Hands out 0, 1, 2 … to the audit's workers.
final class NextIndex: Sendable {
    private let value = Mutex(0)
    func take() -> Int { value.withLock { n in defer { n += 1 }; return n } }
    /// Indices handed out so far (a worker that found the list exhausted took one too).
    var taken: Int { value.withLock { $0 } }
}
