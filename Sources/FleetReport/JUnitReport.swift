import FleetMetrics
import FleetStats
import Foundation

/// One JUnit test case: a threshold, an invariant or a compared figure, with its measured value.
public struct JUnitCase: Sendable, Equatable {
    public var name: String
    public var classname: String
    /// nil: passed. Otherwise the failure message (with the measured value).
    public var failure: String?
    /// The measured value in words, for passing cases too (`system-out`).
    public var output: String

    public init(name: String, classname: String, failure: String?, output: String) {
        self.name = name
        self.classname = classname
        self.failure = failure
        self.output = output
    }
}

/// A named group of cases (`thresholds`, `invariants`, `regression`).
public struct JUnitSuite: Sendable, Equatable {
    public var name: String
    public var cases: [JUnitCase]
    public init(name: String, cases: [JUnitCase]) { self.name = name; self.cases = cases }
}

/// `--junit FILE`: the run's verdicts as JUnit XML, the format CI servers display, valid against
/// the schema in `deploy/nightly/junit.xsd` (the shape Jenkins and Ant use).
public enum JUnitReport {
    /// Thresholds, then the comparison's figures when there is one, then `extra` suites (invariant
    /// checks, when the run has them).
    public static func render(_ r: RunResults, comparison: RunComparison?, extra: [JUnitSuite] = []) -> String {
        var suites = [JUnitSuite(name: "thresholds", cases: r.meta.thresholds.map { t in
            JUnitCase(name: "\(t.metric) \(t.expression)", classname: "fleet.thresholds",
                      failure: t.passed ? nil : t.message, output: t.message)
        })]
        if let c = comparison { suites.append(regressionSuite(c)) }
        if let inv = invariantsSuite(r) { suites.append(inv) }
        suites.append(contentsOf: extra)
        return xml(suites, runId: r.meta.runId, profile: r.meta.profile, startedAt: r.meta.startedAt,
                   seconds: r.meta.actualDurationSeconds)
    }

    /// One case per invariant when the run checked them (`checked_users` > 0): failed with the
    /// count and the first violation, passed with the number of users checked.
    static func invariantsSuite(_ r: RunResults) -> JUnitSuite? {
        let checked = r.counter(.checkedUsers) ?? 0
        guard checked > 0 || !r.violations.isEmpty else { return nil }
        return JUnitSuite(name: "invariants", cases: Invariant.allCases.map { inv in
            let vs = r.violations.filter { $0.invariant == inv }
            let failure = vs.first.map { v in
                "\(vs.count) violation\(vs.count == 1 ? "" : "s") by \(Set(vs.map(\.user)).count) user(s); first: user \(v.user) at "
                    + String(format: "%.1f", v.firstAtS) + " s: \(v.detail)"
            }
            return JUnitCase(name: inv.rawValue, classname: "fleet.invariants", failure: failure,
                             output: failure ?? "held for \(checked) users")
        })
    }

    /// One case per compared headline percentile and rate (the figures that decide exit 97), and
    /// per endpoint percentile as informational cases that never fail.
    static func regressionSuite(_ c: RunComparison) -> JUnitSuite {
        var cases: [JUnitCase] = []
        for m in c.metrics {
            for p in m.percentiles {
                let iv = p.low.map { String(format: "[%.3f, %.3f]", $0, p.high ?? $0) } ?? "(too few windows)"
                let text = "\(m.name) p\(Int(p.percentile)): "
                    + String(format: "baseline %.1f ms, this run %.1f ms, ratio %.3f ", Double(p.baseMicros) / 1000,
                             Double(p.newMicros) / 1000, p.ratio)
                    + "\(iv), minimum effect \(String(format: "%g", c.minEffect * 100)) %: \(p.verdict.rawValue)"
                cases.append(JUnitCase(name: "\(m.name) p\(Int(p.percentile))", classname: m.headline ? "fleet.regression" : "fleet.endpoints",
                                       failure: m.headline && p.verdict == .worse ? text : nil, output: text))
            }
        }
        for r in c.rates {
            let t = r.test
            let text = "\(r.name): " + String(format: "baseline %.4f, this run %.4f, p = %.3g", t.baseRate, t.newRate, t.pValue)
                + ": \(r.verdict.rawValue)"
            cases.append(JUnitCase(name: r.name, classname: "fleet.regression", failure: r.verdict == .worse ? text : nil, output: text))
        }
        return JUnitSuite(name: "regression vs \(c.baseRunId)", cases: cases)
    }

    static func xml(_ suites: [JUnitSuite], runId: String, profile: String, startedAt: String, seconds: Double) -> String {
        let tests = suites.reduce(0) { $0 + $1.cases.count }
        let failures = suites.reduce(0) { $0 + $1.cases.filter { $0.failure != nil }.count }
        var s = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        s += "<testsuites name=\"fleet \(esc(profile))\" tests=\"\(tests)\" failures=\"\(failures)\" errors=\"0\" "
        s += "time=\"\(String(format: "%.3f", seconds))\">\n"
        // JUnit timestamps have no zone designator or fraction.
        let stamp = String(startedAt.prefix(19))
        for (i, suite) in suites.enumerated() {
            let f = suite.cases.filter { $0.failure != nil }.count
            s += "  <testsuite name=\"\(esc(suite.name))\" id=\"\(i)\" package=\"fleet\" tests=\"\(suite.cases.count)\" "
            s += "failures=\"\(f)\" errors=\"0\" skipped=\"0\" time=\"\(String(format: "%.3f", seconds))\" timestamp=\"\(esc(stamp))\" hostname=\"localhost\">\n"
            s += "    <properties><property name=\"run_id\" value=\"\(esc(runId))\"/><property name=\"profile\" value=\"\(esc(profile))\"/></properties>\n"
            for c in suite.cases {
                s += "    <testcase name=\"\(esc(c.name))\" classname=\"\(esc(c.classname))\" time=\"0\">"
                if let f = c.failure { s += "<failure message=\"\(esc(f))\" type=\"\(esc(suite.name.split(separator: " ").first.map(String.init) ?? "fleet"))\">\(esc(f))</failure>" }
                s += "<system-out>\(esc(c.output))</system-out></testcase>\n"
            }
            s += "  </testsuite>\n"
        }
        return s + "</testsuites>\n"
    }

    /// XML text and attribute escaping: the HTML escaping (valid XML too), after dropping the
    /// characters XML 1.0 cannot hold at all (control characters other than tab and line breaks).
    static func esc(_ s: String) -> String {
        var kept = String.UnicodeScalarView()
        for u in s.unicodeScalars where u.value >= 0x20 || u == "\t" || u == "\n" || u == "\r" {
            if u.value != 0xFFFE && u.value != 0xFFFF { kept.append(u) }
        }
        return Format.html(String(kept))
    }

    public static func write(_ xml: String, to path: String) throws {
        do { try Data(xml.utf8).write(to: URL(fileURLWithPath: path), options: .atomic) } catch {
            throw ReportError(path: path, problem: "cannot write the JUnit file: \(error.localizedDescription)")
        }
    }
}
