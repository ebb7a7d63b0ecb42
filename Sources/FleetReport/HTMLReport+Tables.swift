import FleetMetrics
import Foundation

// The table sections of the page: endpoints, journey funnel, errors.
extension HTMLReport {
    func endpointsSection() -> String {
        let seconds = ReportFacts.durationSeconds(results)
        var s = "<section id=\"endpoints\">\n<h2>Endpoints</h2>\n"
        s += "<p class=\"hint\">Corrected latencies. Breakdown: libcurl's median DNS, connect, TLS and first-byte times "
        s += "in ms (cumulative from the start of the transfer); the phase bar splits the median total into them.</p>\n"
        guard !results.endpoints.isEmpty else { return s + "<p class=\"empty\">No requests were recorded.</p>\n</section>\n" }
        s += "<div class=\"scroll\"><table class=\"endpoints\"><thead><tr><th>Endpoint</th><th>Requests</th><th>Rate</th>"
        s += "<th>p50</th><th>p90</th><th>p99</th><th>p99.9</th><th>Max</th><th>Errors by status</th>"
        s += "<th>DNS · connect · TLS · first byte</th><th>Phases</th>"
        if baseline != nil { s += "<th>p99 vs baseline</th>" }
        s += "</tr></thead><tbody>"
        for e in results.endpoints {
            let h = e.latency.corrected
            let p = h.values(atPercentiles: [50, 90, 99, 99.9])
            let errorStatuses = e.statuses.filter { $0.key == "transport" || (Int($0.key) ?? 0) >= 400 }
                .sorted { $0.key < $1.key }.map { "\($0.key == "transport" ? "no response" : $0.key) ×\($0.value)" }
            s += "<tr><td class=\"name\"><code>\(Format.html(e.name))</code></td><td>\(Format.count(h.count))</td>"
            s += "<td>\(Format.rate(seconds > 0 ? Double(h.count) / seconds : 0))</td>"
            s += p.map { "<td>\(Format.duration(micros: $0))</td>" }.joined() + "<td>\(Format.duration(micros: h.max))</td>"
            s += "<td\(cls(e.latency.errors > 0 ? "bad" : nil))>\(e.latency.errors == 0 ? "none" : Format.html(errorStatuses.joined(separator: ", ")))</td>"
            s += "<td>" + (e.total.isEmpty ? "–" : [e.dns, e.connect, e.tls, e.firstByte]
                .map { Format.tick((Double($0.value(atPercentile: 50)) / 10).rounded() / 100) }.joined(separator: " · ") + " ms") + "</td>"
            s += "<td>\(phaseBar(e))</td>"
            if let b = baseline {
                if let be = b.endpoint(e.name), !be.latency.corrected.isEmpty {
                    s += "<td>\(delta(Double(p[2]), Double(be.latency.corrected.value(atPercentile: 99))))</td>"
                } else {
                    s += "<td>new</td>"
                }
            }
            s += "</tr>"
        }
        s += "</tbody></table></div>\n"
        s += "<p class=\"legend\">" + Self.phases.map { "<span class=\"sw\" style=\"background:\($0.colour)\"></span>\($0.name)" }
            .joined(separator: " ") + "</p>\n"
        return s + "</section>\n"
    }

    static let phases: [(name: String, colour: String)] = [
        ("DNS", "#56B4E9"), ("connect", "#009E73"), ("TLS", "#CC79A7"), ("waiting for first byte", "#E69F00"), ("receiving", "#0072B2"),
    ]

    /// A 110 px bar of the median request's phases, with the numbers in its tooltip.
    private func phaseBar(_ e: EndpointResult) -> String {
        guard !e.total.isEmpty else { return "–" }
        let cum = [e.dns, e.connect, e.tls, e.firstByte, e.total].map { Double($0.value(atPercentile: 50)) }
        var edges = [0.0]
        for v in cum { edges.append(Swift.max(edges.last!, v)) }
        let total = Swift.max(edges.last!, 1)
        var s = "<svg class=\"phases\" viewBox=\"0 0 110 12\" width=\"110\" height=\"12\" role=\"img\"><title>"
        s += zip(Self.phases, zip(edges, edges.dropFirst())).filter { $1.1 > $1.0 }
            .map { "\($0.name) \(Format.duration(micros: Int64($1.1 - $1.0)))" }.joined(separator: ", ") + "</title>"
        var x = 0.0
        for (k, (a, b)) in zip(edges, edges.dropFirst()).enumerated() where b > a {
            let w = (b - a) / total * 110
            s += "<rect x=\"\(String(format: "%.1f", x))\" y=\"0\" width=\"\(String(format: "%.1f", w))\" height=\"12\" fill=\"\(Self.phases[k].colour)\"/>"
            x += w
        }
        return s + "</svg>"
    }

    func journeysSection() -> String {
        var s = "<section id=\"journeys\">\n<h2>Journeys</h2>\n"
        guard !results.journeys.isEmpty else { return s + "<p class=\"empty\">No journeys were recorded.</p>\n</section>\n" }
        s += "<table class=\"journeys\"><thead><tr><th>Journey</th><th>Cohort</th><th>Started</th><th>Completed</th>"
        s += "<th>Abandoned</th><th>Failed</th><th>Still running</th><th>Duration p50</th><th>Duration p99</th></tr></thead><tbody>"
        for j in results.journeys {
            let p = j.duration.values(atPercentiles: [50, 99])
            s += "<tr><td>\(Format.html(j.journey))</td><td>\(Format.html(j.cohort))</td><td>\(Format.count(j.started))</td>"
            s += "<td>\(Format.count(j.completed))</td><td>\(Format.count(j.abandoned))</td>"
            s += "<td\(cls(j.failed > 0 ? "bad" : nil))>\(Format.count(j.failed))</td><td>\(Format.count(j.inProgress))</td>"
            s += j.duration.isEmpty ? "<td>–</td><td>–</td>" : "<td>\(Format.duration(micros: p[0]))</td><td>\(Format.duration(micros: p[1]))</td>"
            s += "</tr>"
        }
        s += "</tbody></table>\n<h3>Funnels</h3>\n<div class=\"funnels\">"
        for j in results.journeys { s += funnel(j) }
        return s + "</div>\n</section>\n"
    }

    /// One journey × cohort funnel: how many reached each step and how many left there, and why.
    private func funnel(_ j: JourneyResult) -> String {
        var s = "<div class=\"funnel\"><h4>\(Format.html(j.journey)) · \(Format.html(j.cohort))</h4>"
        s += "<table><thead><tr><th>Step</th><th>Reached</th><th>Of started</th><th>Left here</th></tr></thead><tbody>"
        let base = Double(Swift.max(j.started, 1))
        let rows = [StepCount(step: "started", reached: j.started)] + j.steps + [StepCount(step: "completed", reached: j.completed)]
        for step in rows {
            let share = Double(step.reached) / base
            let exits = j.exits.filter { $0.step == step.step }
            let left = exits.map { "\($0.count) \($0.outcome.rawValue)\($0.code.map { " (\($0))" } ?? "")" }.joined(separator: ", ")
            s += "<tr><td>\(Format.html(step.step))</td><td>\(Format.count(step.reached))</td>"
            s += "<td><span class=\"bar\"><span style=\"width:\(String(format: "%.1f", Swift.min(1, share) * 100))%\"></span></span> "
            // A step visited more than once per journey (home at the start and the end) is a rate, not a share.
            s += (share > 1 ? String(format: "%.2f× per journey", share) : Format.percent(share)) + "</td>"
            s += "<td\(cls(exits.contains { $0.outcome == .failed } ? "bad" : nil))>\(Format.html(left))</td></tr>"
        }
        return s + "</tbody></table></div>"
    }

    func errorsSection() -> String {
        var s = "<section id=\"errors\">\n<h2>Errors</h2>\n"
        let rows = ReportFacts.errorsByCount(results)
        guard !rows.isEmpty else { return s + "<p class=\"empty\">No request failed.</p>\n</section>\n" }
        s += "<div class=\"scroll\"><table class=\"errors\"><thead><tr><th>Status</th><th>Error code</th><th>Endpoint</th>"
        s += "<th>Count</th><th>First at</th><th>Sample message</th></tr></thead><tbody>"
        for e in rows {
            s += "<tr><td>\(e.status.map(String.init) ?? "no response")</td><td>\(Format.html(e.code ?? "–"))</td>"
            s += "<td><code>\(Format.html(e.endpoint))</code></td><td>\(Format.count(e.count))</td>"
            s += "<td>\(String(format: "%.1f", Double(e.firstOffsetNanos) / 1e9)) s</td>"
            s += "<td class=\"msg\">\(Format.html(e.sampleMessage ?? ""))</td></tr>"
        }
        return s + "</tbody></table></div>\n</section>\n"
    }
}
