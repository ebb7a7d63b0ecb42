import FleetClient
import FleetCore
import FleetMetrics

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
/// | returning | onboarded, diagnostic assessed (so the plan job ran), a trial, `historySessions` completed sessions (streak 1) |
/// | trial | onboarded, a trial, no sessions |
/// | subscriber | onboarded, an active paid subscription, no sessions |
/// | at_risk | onboarded, a trial ending soon (`cohort.at_risk_remaining`, default 5 min), no sessions |
/// | expired | onboarded, a paid subscription that ended yesterday, no sessions |
/// | reactivated | onboarded, a lapsed subscription, then subscribed again (active) |
///
/// Only `returning` records in its warm-up (3 assessments): the cohorts that capacity and smoke
/// profiles use in bulk start cheap, so that their warm-up does not load the assessment workers
/// during the measured run. Their diagnostic session is abandoned (`POST /sessions/{id}/abandon`)
/// so that home shows nothing to resume. A profile can make any cohort record its diagnostic
/// with the probability `cohort.<name>.diagnostic` (default 1 for returning, 0 otherwise).
/// The warm-up does not wait for the plan: its job runs `planDelay` after the diagnostic on the
/// stack, and polling it through `404 plan_not_ready` would put errors into the run's totals.
/// Expired users start without history: sessions need an entitlement, and API.md keeps the latest
/// `expires_date` seen, so a lapse cannot follow a live subscription without waiting it out.
public enum Population {
    /// Journeys each cohort walks, with weights: what a scenario without `journeys` uses (`pick`).
    public static let defaultJourneyWeights: [String: [JourneyName: Double]] = [
        "new": [.firstLaunch: 0.9, .permissionDenied: 0.1],
        "returning": [.dailyQuest: 0.55, .freePractice: 0.2, .killAndResume: 0.05, .offlineUpload: 0.05,
                      .changeLanguages: 0.05, .deleteData: 0.05, .firstLaunch: 0.05],
        "trial": [.dailyQuest: 0.55, .freePractice: 0.25, .permissionDenied: 0.1, .changeLanguages: 0.1],
        "subscriber": [.dailyQuest: 0.55, .freePractice: 0.2, .killAndResume: 0.1, .offlineUpload: 0.05, .deleteData: 0.1],
        "at_risk": [.expiry: 0.5, .dailyQuest: 0.3, .freePractice: 0.2],
        "expired": [.expiry: 0.7, .dailyQuest: 0.2, .deleteData: 0.1],
        "reactivated": [.dailyQuest: 0.6, .freePractice: 0.3, .changeLanguages: 0.1],
    ]

    /// The cohort and journey of one arriving user, drawn from `random`. A scenario that names its
    /// `journeys` draws the journey from them and then the cohort (the order its seeds were drawn
    /// in before cohorts had mixes); one that names only `cohorts` (empty `journeys`) draws the
    /// cohort, then a journey from that cohort's `defaultJourneyWeights`.
    public static func pick(journeys: [JourneyName: Double], cohorts: [String: Double],
                            random: inout SeededRandom) -> (journey: JourneyName, cohort: String) {
        let explicit = journeys.isEmpty ? nil : draw(journeys, &random)
        let cohort = cohorts.isEmpty ? "new" : draw(cohorts, &random)
        // Profile validation allows only known cohorts, all of which have a mix; the daily quest
        // is the fallback for a caller that skipped it.
        return (explicit ?? draw(defaultJourneyWeights[cohort] ?? [.dailyQuest: 1], &random), cohort)
    }

    /// One name by weight; names are sorted first so that a seed gives the same draw in every run.
    private static func draw<Name: Comparable>(_ weights: [Name: Double], _ random: inout SeededRandom) -> Name {
        let names = weights.keys.sorted()
        return names[random.weightedIndex(names.map { weights[$0]! })]
    }

    /// Completed sessions the returning cohort starts with.
    public static let historySessions = 1

    /// Brings `user` to its cohort's starting state through the API. Returns false when the
    /// warm-up failed (recorded as a failed `warmup` journey of the cohort): the user should not
    /// walk its journey from a wrong state. `new` (and an unknown cohort) needs no warm-up.
    @inline(never)  // async steps are not inlined: see VirtualUser (frames)
    public static func prepare(_ user: VirtualUser) async -> Bool {
        // Decided before any frame of the warm-up's is made: most users (new) have none, and a
        // task keeps the slab of the deepest frame it reached while its user thinks (656 bytes
        // here for every user when the plan was made in this frame; see `APIClient.attempts`).
        guard warmupPlan(for: user) != nil else { return true }
        return await warm(user)
    }

    /// The user's warm-up and its plan, nil for a cohort that has none. The plan draws from the
    /// warm-up's own generator, a copy of the user's: made again, it is the same plan.
    @inline(never)
    static func warmupPlan(for user: VirtualUser) -> (Warmup, WarmupPlan)? {
        var warmup = Warmup(user: user)
        guard let plan = WarmupPlan(cohort: user.cohort, behaviour: user.world.behaviour, random: &warmup.random) else { return nil }
        return (warmup, plan)
    }

    @inline(never)
    private static func warm(_ user: VirtualUser) async -> Bool {
        // Made again here rather than passed in: an argument of `prepare`'s await would be a
        // slot of its frame, which every user's task keeps.
        guard let planned = warmupPlan(for: user) else { return true }
        var warmup = planned.0
        let plan = planned.1
        let recorder = user.world.recorder
        let started = MonotonicClock.now()
        recorder.journeyStarted(JourneyResult.warmup, cohort: user.cohort)
        let result = await RequestScope.with({ $0.endpointScope = .warmup }) { () async -> Result<Void, Warmup.Failure> in
            do throws(Warmup.Failure) {
                try await warmup.run(plan)
                return .success(())
            } catch {
                return .failure(error)
            }
        }
        switch result {
        case .success:
            recorder.journeyEnded(JourneyResult.warmup, cohort: user.cohort, outcome: .completed, step: "done", errorCode: nil,
                                  intended: started, end: MonotonicClock.now())
            if plan.diagnostic { user.device.micPermission = .granted }  // it recorded the diagnostic
            user.nextIntended = max(user.nextIntended, MonotonicClock.now())
            return true
        case let .failure(f):
            // A warm-up cut short by the end of the run (or a kill) was interrupted, not broken.
            let stopped = f.code == "interrupted" || f.code == "aborted" || Task.isCancelled
            recorder.journeyEnded(JourneyResult.warmup, cohort: user.cohort, outcome: stopped ? .abandoned : .failed, step: f.step,
                                  errorCode: stopped ? "interrupted" : f.code, intended: started, end: MonotonicClock.now())
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

    var diagnostic: Bool
    var history: Int
    var purchases: [Purchase]

    init?(cohort: String, behaviour: Behaviour, random: inout SeededRandom) {
        let week: Int64 = 7 * 86_400_000
        let atRisk = Int64(behaviour.thinkTimes["cohort.at_risk_remaining"]?.meanMs ?? 300_000)
        switch cohort {
        case "returning": (history, purchases) = (Population.historySessions, [.trial(remainingMs: week)])
        case "trial": (history, purchases) = (0, [.trial(remainingMs: week)])
        case "subscriber": (history, purchases) = (0, [.active])
        case "at_risk": (history, purchases) = (0, [.trial(remainingMs: max(1_000, atRisk))])
        case "expired": (history, purchases) = (0, [.lapsed])
        case "reactivated": (history, purchases) = (0, [.lapsed, .active])
        default: return nil
        }
        // Drawn once the cohort is known to have a warm-up: every `new` user asked for a plan, and
        // built this key and drew for nothing (the draw is from the warm-up's own generator).
        diagnostic = random.chance(behaviour.probability("cohort.\(cohort).diagnostic", default: cohort == "returning" ? 1 : 0))
    }
}
