import FleetCheck
import FleetCore
import FleetJourneys

/// The bug hunt's part of a profile: `checks` (top level) and `scenarios[].amplifiers`.
extension Profile {
    static let checkKeys: Set<String> = ["enabled", "trace_ring", "audit_s", "audit_max_s", "clock_skew_tolerance_s", "max_violations"]

    static func parseChecks(_ v: JSONValue?, _ r: ProfileReader) -> CheckSettings {
        var c = CheckSettings()
        guard let o = r.object(v, "checks", known: checkKeys) else { return c }
        if let e = o["enabled"] {
            if let b = e.bool { c.enabled = b } else { r.issue("checks.enabled", "must be true or false") }
        }
        c.traceRing = r.integer(o, "trace_ring", "checks", atLeast: 1, atMost: 100_000) ?? c.traceRing
        c.auditS = r.number(o, "audit_s", "checks", atLeast: 0, atMost: 600) ?? c.auditS
        c.auditMaxS = r.number(o, "audit_max_s", "checks", atLeast: 0, atMost: 1800) ?? max(c.auditMaxS, c.auditS)
        if c.auditMaxS < c.auditS { r.issue("checks.audit_max_s", "must be >= audit_s (\(c.auditS))") }
        c.clockSkewToleranceS = r.number(o, "clock_skew_tolerance_s", "checks", atLeast: 0, atMost: 3600) ?? c.clockSkewToleranceS
        c.maxViolations = r.integer(o, "max_violations", "checks", atLeast: 1) ?? c.maxViolations
        return c
    }

    static func parseAmplifiers(_ v: JSONValue?, path p: String, _ r: ProfileReader) -> Amplifiers {
        var a = Amplifiers()
        guard let o = r.object(v, p, known: Amplifiers.keys) else { return a }
        func rate(_ k: String) -> Double? { r.number(o, k, p, atLeast: 0, atMost: 1) }
        a.doubleTap = rate("double_tap") ?? a.doubleTap
        a.doubleTapCopies = r.integer(o, "double_tap_copies", p, atLeast: 2, atMost: 16) ?? a.doubleTapCopies
        a.lateDuplicate = rate("late_duplicate") ?? a.lateDuplicate
        a.killDuringComplete = rate("kill_during_complete") ?? a.killDuringComplete
        a.duplicatePurchase = rate("duplicate_purchase") ?? a.duplicatePurchase
        a.duplicatePurchaseCopies = r.integer(o, "duplicate_purchase_copies", p, atLeast: 1, atMost: 16) ?? a.duplicatePurchaseCopies
        a.twinDevice = rate("twin_device") ?? a.twinDevice
        a.backToBack = rate("back_to_back") ?? a.backToBack
        a.backToBackSessions = r.integer(o, "back_to_back_sessions", p, atLeast: 1, atMost: 20) ?? a.backToBackSessions
        a.midnight = rate("midnight") ?? a.midnight
        a.readAfterDelete = rate("read_after_delete") ?? a.readAfterDelete
        a.crossUserProbe = rate("cross_user_probe") ?? a.crossUserProbe
        return a
    }
}
