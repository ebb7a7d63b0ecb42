import FleetAudio
import FleetCore

/// The product rules the flows leave to the backend, in one place (and in contract/openapi.yaml).
enum Rules {
    // The practice language and UI locale a sign-in locale implies: `LanguageTag.closest`, the
    // rule the app uses too (`zh-Hans-CN` → `zh-Hans`, or `zh` where that is the code).

    // MARK: Settlement

    /// XP for a completed session before discounts: daily 50, free 30, diagnostic 0.
    static func baseXP(kind: String) -> Int64 {
        switch kind {
        case "daily": return 50
        case "free": return 30
        default: return 0
        }
    }
    /// Bonus when round 2 improved on round 1.
    static let improvedBonusXP: Int64 = 10
    /// Window of the repeat discount (`xp.repeat_discount`): the same article settled within 7 days earns half.
    static let repeatWindowMs: Int64 = 7 * 86_400_000
    /// Level = 1 + xp / 200.
    static let xpPerLevel: Int64 = 200

    /// `outcome` from the two rounds' overall scores: round 2 at least 3 points higher → improved;
    /// at least 3 points lower → shorter_lost (the compressed retelling lost content); else same.
    static func outcome(round1: Int, round2: Int) -> String {
        let d = round2 - round1
        if d >= 3 { return "improved" }
        if d <= -3 { return "shorter_lost" }
        return "same"
    }

    /// Achievements and when they are earned (ids are stable; titles are for display).
    static let achievementTitles: [String: String] = [
        "first_session": "First session completed",
        "streak_3": "Three-day streak",
        "streak_7": "Seven-day streak",
        "sessions_10": "Ten sessions completed",
        "level_2": "Reached level 2",
        "level_5": "Reached level 5",
    ]

    static func earnedAchievements(sessionsCompleted: Int64, streak: Int64, level: Int64) -> [String] {
        var ids: [String] = []
        if sessionsCompleted >= 1 { ids.append("first_session") }
        if streak >= 3 { ids.append("streak_3") }
        if streak >= 7 { ids.append("streak_7") }
        if sessionsCompleted >= 10 { ids.append("sessions_10") }
        if level >= 2 { ids.append("level_2") }
        if level >= 5 { ids.append("level_5") }
        return ids
    }

    // MARK: Scores

    /// Scores 0–100 derived deterministically from the audio's features:
    /// fluency from the share of active (speech) frames, pronunciation from how close the RMS
    /// level is to a clear speaking level (−18 dBFS), completeness from the spoken duration
    /// (full marks from 6 s); overall is their weighted mean (0.4, 0.35, 0.25). Confidence grows
    /// with the active share and drops by 40 % when the audio is clipped.
    struct Scores: Equatable {
        let overall: Int, fluency: Int, pronunciation: Int, completeness: Int
        let confidence: Double
    }

    static func scores(_ f: AudioFeatures, clipped: Bool) -> Scores {
        func clamp(_ x: Double) -> Int { Int(max(0, min(100, x.rounded()))) }
        let fluency = clamp(30 + 70 * f.activeFraction)
        let pronunciation = clamp(100 - 2 * abs(f.rmsDbfs + 18))
        let completeness = clamp(40 + 60 * min(1, Double(f.durationMs) / 6000))
        let overall = clamp(0.4 * Double(fluency) + 0.35 * Double(pronunciation) + 0.25 * Double(completeness))
        var confidence = 0.6 + 0.35 * max(0, min(1, f.activeFraction))
        if clipped { confidence *= 0.6 }
        return Scores(overall: overall, fluency: fluency, pronunciation: pronunciation, completeness: completeness,
                      confidence: (confidence * 100).rounded() / 100)
    }
}
