import FleetMetrics

/// The invariants section: counts per invariant, then the first examples with their evidence and
/// a link to the violating user's trace.
extension HTMLReport {
    func invariantsSection() -> String {
        let vs = results.violations
        var s = "<section id=\"invariants\">\n<h2>Invariants violated</h2>\n"
        s += "<div class=\"warning\" role=\"alert\"><strong>✘ \(vs.count) violation\(vs.count == 1 ? "" : "s")</strong> of the "
        s += "contract's invariants. Each names the user to replay alone: <code>fleet replay --run DIR --user K</code>.</div>\n"
        s += "<table><thead><tr><th>Invariant</th><th>Violations</th><th>Users</th><th>First at</th></tr></thead><tbody>"
        for inv in Invariant.allCases {
            let these = vs.filter { $0.invariant == inv }
            guard let first = these.first else { continue }
            s += "<tr><td><code>\(inv.rawValue)</code></td><td>\(these.count)</td><td>\(Set(these.map(\.user)).count)</td>"
            s += "<td>\(Format.html(String(format: "%.1f s", first.firstAtS)))</td></tr>"
        }
        s += "</tbody></table>\n<h3>First examples</h3>\n<table><thead><tr><th>Invariant</th><th>User</th><th>Journey</th>"
        s += "<th>At</th><th>Detail</th><th>Requests</th></tr></thead><tbody>"
        for inv in Invariant.allCases {
            for v in vs.filter({ $0.invariant == inv }).prefix(3) {
                s += "<tr><td><code>\(inv.rawValue)</code></td>"
                s += "<td><a href=\"traces/user-\(v.user).jsonl\">\(v.user)</a></td><td>\(Format.html(v.journey))</td>"
                s += "<td>\(Format.html(String(format: "%.1f s", v.firstAtS)))</td><td class=\"msg\">\(Format.html(Format.cut(v.detail, 400)))</td>"
                s += "<td class=\"msg\">\(v.requests.map { Format.html(Format.cut($0, 120)) }.joined(separator: "<br>"))</td></tr>"
            }
        }
        return s + "</tbody></table>\n</section>\n"
    }
}
