import FleetMetrics
import Foundation

// Generator health per shard of a merged run (`fleet merge`): which process kept up, which did not.
extension HTMLReport {
    /// One row per shard: which machine it ran on (by kernel boot id), where it sent from, when it started, its load, its own scheduling lag
    /// and peaks; a shard that fell behind or started late is marked and says why. Empty for a
    /// run that was not merged from shards.
    func shardTable() -> String {
        guard let runs = results.meta.shardRuns, !runs.isEmpty else { return "" }
        let lagging = runs.filter { !$0.behind.isEmpty }
        let machines = ShardSummary.machines(of: runs)
        var s = "<h3 id=\"shards\">Shards</h3>\n<p class=\"hint\">\(runs.count) of \(runs.first!.count) shards merged"
        let distinct = Set(machines.compactMap { $0 }).count
        if distinct > 0 {
            s += " from \(distinct) machine\(distinct == 1 ? "" : "s")"
            // Shards of one machine share its cores: one that fell behind may have been starved by its neighbours.
            if distinct < runs.count { s += " (shards on one machine share its CPU)" }
        }
        s += lagging.isEmpty ? "; every shard kept up."
            : "; <strong>fell behind: " + Format.html(lagging.map { "shard \($0.label)" }.joined(separator: ", ")) + "</strong>."
        s += "</p>\n<div class=\"scroll\"><table class=\"shards\"><thead><tr><th>Shard</th><th>Run</th><th>Machine</th><th>Source address</th>"
        s += "<th>Started</th><th>Late by</th><th>Users</th><th>Requests</th><th>Lag p99</th><th>Lag max</th><th>Dropped</th>"
        s += "<th>Peak CPU</th><th>Peak RSS</th><th>Generator</th></tr></thead><tbody>"
        for (r, machine) in zip(runs, machines) {
            s += "<tr\(cls(r.behind.isEmpty ? nil : "fail"))><td>\(r.label)</td><td>\(Format.html(r.runId))</td>"
            s += "<td>\(Format.html(machine ?? "–"))</td><td>\(Format.html(r.sourceAddress ?? "–"))</td><td>\(Format.html(r.startedAt))</td>"
            s += "<td>\(Format.duration(ms: Double(r.lateByMillis)))</td><td>\(Format.count(r.usersStarted))</td>"
            s += "<td>\(Format.count(r.requests))</td><td>\(Format.duration(micros: r.lagP99Micros))</td>"
            s += "<td>\(Format.duration(micros: r.lagMaxMicros))</td><td>\(Format.count(r.droppedArrivals))</td>"
            s += "<td>\(Format.tick(r.peakCPUPercent.rounded())) %</td><td>\(Format.tick((Double(r.peakRSSBytes) / 1_048_576).rounded())) MiB</td>"
            s += "<td>" + (r.behind.isEmpty ? "kept up" : "✘ fell behind: " + Format.html(r.behind.joined(separator: "; "))) + "</td></tr>"
        }
        return s + "</tbody></table></div>\n"
    }
}
