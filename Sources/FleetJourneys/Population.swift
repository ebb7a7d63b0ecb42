import FleetClient
import FleetCore

/// The lifecycle cohorts users arrive in (seeds/002: new, returning, trial, subscriber, at risk,
/// expired, reactivated): what state each starts from, and which journeys it tends to walk.
///
/// A cohort's starting state is reached THROUGH THE API in a warm-up before the journey (never by
/// writing the stack's database), so the bench works against any stack. Warm-up requests are
/// recorded under a `warmup:` endpoint prefix (`warmup:POST /onboarding`), its outcome as a
/// journey named `warmup` of the cohort, and it records no journey metrics (no turnaround, no
/// settlement, no funnel of the real journey): the report keeps it apart from what is measured.
///
/// | cohort | starting state |
/// |---|---|
/// | new | a fresh install: nothing |
/// | returning | onboarded, diagnostic assessed, a trial, `history` completed sessions (streak 1) |
/// | trial | onboarded, diagnostic assessed, a trial, no sessions |
/// | subscriber | onboarded, diagnostic assessed, an active paid subscription, `history` sessions |
/// | at_risk | onboarded, diagnostic assessed, a trial ending soon (`cohort.at_risk_remaining`, default 5 min), no sessions |
/// | expired | onboarded, diagnostic assessed, a paid subscription that ended yesterday, no sessions |
/// | reactivated | as expired, then subscribed again (active), then `history` sessions |
///
/// The warm-up does not wait for the plan: its job runs `planDelay` after the diagnostic on the
/// stack, and polling it through `404 plan_not_ready` would put errors into the run's totals.
/// Expired users start without history: sessions need an entitlement, and API.md keeps the latest
/// `expires_date` seen, so a lapse cannot follow a live subscription without waiting it out.
public enum Population {
    /// Journeys each cohort walks, with weights: the defaults a profile's scenario falls back to.
    public static let defaultJourneyWeights: [String: [String: Double]] = [
        "new": ["firstLaunch": 0.9, "permissionDenied": 0.1],
        "returning": ["dailyQuest": 0.55, "freePractice": 0.2, "killAndResume": 0.05, "offlineUpload": 0.05,
                      "changeLanguages": 0.05, "deleteData": 0.05, "firstLaunch": 0.05],
        "trial": ["dailyQuest": 0.55, "freePractice": 0.25, "permissionDenied": 0.1, "changeLanguages": 0.1],
        "subscriber": ["dailyQuest": 0.55, "freePractice": 0.2, "killAndResume": 0.1, "offlineUpload": 0.05, "deleteData": 0.1],
        "at_risk": ["expiry": 0.5, "dailyQuest": 0.3, "freePractice": 0.2],
        "expired": ["expiry": 0.7, "dailyQuest": 0.2, "deleteData": 0.1],
        "reactivated": ["dailyQuest": 0.6, "freePractice": 0.3, "changeLanguages": 0.1],
    ]

    /// Completed sessions the returning, subscriber, expired and reactivated cohorts start with.
    public static let historySessions = 1

    /// Brings `user` to its cohort's starting state through the API. Returns false when the
    /// warm-up failed (recorded as a failed `warmup` journey of the cohort): the user should not
    /// walk its journey from a wrong state. `new` (and an unknown cohort) needs no warm-up.
    public static func prepare(_ user: VirtualUser) async -> Bool {
        guard let plan = WarmupPlan(cohort: user.cohort, behaviour: user.world.behaviour) else { return true }
        let recorder = user.world.recorder
        let started = MonotonicClock.now()
        recorder.journeyStarted("warmup", cohort: user.cohort)
        var warmup = Warmup(user: user)
        let result = await RequestScope.$endpointPrefix.withValue("warmup:") { () async -> Result<Void, Warmup.Failure> in
            do throws(Warmup.Failure) {
                try await warmup.run(plan)
                return .success(())
            } catch {
                return .failure(error)
            }
        }
        switch result {
        case .success:
            recorder.journeyEnded("warmup", cohort: user.cohort, outcome: .completed, step: "done", errorCode: nil,
                                  intended: started, end: MonotonicClock.now())
            user.device.micPermission = .granted  // it recorded the diagnostic
            user.nextIntended = max(user.nextIntended, MonotonicClock.now())
            return true
        case let .failure(f):
            recorder.journeyEnded("warmup", cohort: user.cohort, outcome: .failed, step: f.step, errorCode: f.code,
                                  intended: started, end: MonotonicClock.now())
            return false
        }
    }
}

/// What the warm-up of a cohort does, in order.
struct WarmupPlan: Equatable {
    enum Purchase: Equatable {
        /// A trial of `remainingMs` from now.
        case trial(remainingMs: Int64)
        /// A paid period from now.
        case active
        /// A paid period that ended a day ago.
        case lapsed
    }

    var history: Int
    var purchases: [Purchase]

    init?(cohort: String, behaviour: Behaviour) {
        let week: Int64 = 7 * 86_400_000
        let atRisk = Int64(behaviour.thinkTimes["cohort.at_risk_remaining"]?.meanMs ?? 300_000)
        switch cohort {
        case "returning": (history, purchases) = (Population.historySessions, [.trial(remainingMs: week)])
        case "trial": (history, purchases) = (0, [.trial(remainingMs: week)])
        case "subscriber": (history, purchases) = (Population.historySessions, [.active])
        case "at_risk": (history, purchases) = (0, [.trial(remainingMs: max(1_000, atRisk))])
        case "expired": (history, purchases) = (0, [.lapsed])
        case "reactivated": (history, purchases) = (Population.historySessions, [.lapsed, .active])
        default: return nil
        }
    }
}
