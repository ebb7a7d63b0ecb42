import FleetCore
import FleetCorpus
import FleetJourneys

/// Bad input: every problem of a profile, each with its JSON path, and the file it came from.
public struct ProfileError: Error, CustomStringConvertible {
    public var file: String
    public var issues: [ProfileIssue]

    public var description: String { issues.map { "\(file): \($0)" }.joined(separator: "\n") }
}

extension Profile {
    static let topLevel: Set<String> = ["name", "description", "seed", "duration_s", "grace_s", "target", "stack", "client",
                                        "corpus", "think_times", "probabilities", "time_scale", "network", "scenarios",
                                        "thresholds", "max_lag_ms", "window_s", "max_rerecords", "debug", "checks", "regression",
                                        "population", "capacity"]

    /// Keys that do not change the load a profile sends, left out of its hash: words, the
    /// embedded stack's settings (the system under test, which an A/B comparison changes on
    /// purpose), how invariants are checked, the target (compared on its own), the comparison's own settings, and the seed
    /// and duration (hashed with the values the run used, after `--seed` / `--duration`).
    static let unhashed: Set<String> = ["description", "stack", "target", "regression", "checks", "seed", "duration_s"]

    /// Reads and validates a profile file, reporting every problem at once.
    public static func load(path: String) throws(ProfileError) -> Profile {
        try parse(try readJSON(path: path), file: path)
    }

    /// The profile file's JSON, before validation.
    public static func readJSON(path: String) throws(ProfileError) -> JSONValue {
        guard let data = FileBytes.read(path) else {
            throw ProfileError(file: path, issues: [ProfileIssue(path: "(file)", message: "cannot be read")])
        }
        let json: JSONValue
        do { json = try JSONValue.parse(data) } catch {
            throw ProfileError(file: path, issues: [ProfileIssue(path: "(file)", message: "\(error)")])
        }
        return json
    }

    public static func parse(_ json: JSONValue, file: String) throws(ProfileError) -> Profile {
        let r = ProfileReader()
        guard let o = r.object(json, "", known: topLevel) else {
            throw ProfileError(file: file, issues: [ProfileIssue(path: "(root)", message: "must be a JSON object")])
        }
        let name = r.string(o, "name", "", required: true) ?? ""
        let seed = r.integer(o, "seed", "", atLeast: 0).map(UInt64.init) ?? 1
        let duration = r.number(o, "duration_s", "", required: true, greaterThan: 0) ?? 60
        let grace = r.number(o, "grace_s", "", atLeast: 0) ?? 10
        let target = r.string(o, "target", "")
        if let t = target, !(t.hasPrefix("http://") || t.hasPrefix("https://")) {
            r.issue("target", "must be an http:// or https:// URL")
        }
        if let s = o["stack"], s.object == nil { r.issue("stack", "must be an object") }

        var client = ClientProfile()
        if let c = r.object(o["client"], "client", known: ["app_version", "sandbox_key", "request_timeout_s", "max_retries", "patience_s", "upload_timeout_s", "connections"]) {
            client.appVersion = r.string(c, "app_version", "client") ?? client.appVersion
            client.sandboxKey = r.string(c, "sandbox_key", "client") ?? client.sandboxKey
            client.requestTimeoutS = r.number(c, "request_timeout_s", "client", greaterThan: 0) ?? client.requestTimeoutS
            client.maxRetries = r.integer(c, "max_retries", "client", atLeast: 0, atMost: 20) ?? client.maxRetries
            client.connections = r.integer(c, "connections", "client", atLeast: 0) ?? client.connections
            client.patienceS = r.number(c, "patience_s", "client", greaterThan: 0) ?? client.patienceS
            client.uploadTimeoutS = r.number(c, "upload_timeout_s", "client", greaterThan: 0) ?? client.uploadTimeoutS
        }

        var corpusDir = "audio-corpus"
        var clipMix: [String: Double] = ["speech": 1]
        if let c = r.object(o["corpus"], "corpus", known: ["dir", "clip_mix"]) {
            corpusDir = r.string(c, "dir", "corpus") ?? corpusDir
            clipMix = r.weights(c, "clip_mix", "corpus") ?? clipMix
            for problem in Corpus.problems(inClassMix: clipMix) { r.issue("corpus." + problem.prefix { $0 != ":" }, String(problem.drop { $0 != ":" }.dropFirst(2))) }
        }

        var thinkTimes: [String: ThinkTime] = [:]
        var defaultThink = ThinkTime.uniform(minMs: 1_000, maxMs: 3_000)
        if let t = r.object(o["think_times"], "think_times", known: Set((o["think_times"]?.object ?? [:]).keys)) {
            for k in t.keys.sorted() {
                guard KnownKeys.thinkTimes.contains(k) else {
                    r.issue("think_times.\(k)", "no step pauses on '\(k)' (known: \(KnownKeys.thinkTimes.sorted().joined(separator: ", ")))")
                    continue
                }
                guard let d = parseDistribution(t[k]!, path: "think_times.\(k)", r) else { continue }
                if k == "default" { defaultThink = d } else { thinkTimes[k] = d }
            }
        }
        var probabilities: [String: Double] = [:]
        if let p = r.object(o["probabilities"], "probabilities", known: Set((o["probabilities"]?.object ?? [:]).keys)) {
            for k in p.keys.sorted() {
                if let problem = KnownKeys.probabilityProblem(k) { r.issue("probabilities.\(k)", problem); continue }
                if let v = r.number(p, k, "probabilities", atLeast: 0, atMost: 1) { probabilities[k] = v }
            }
        }
        let timeScale = r.number(o, "time_scale", "", greaterThan: 0, atMost: 100) ?? 1
        let maxReRecords = r.integer(o, "max_rerecords", "", atLeast: 0, atMost: 10) ?? 2

        var network = NetworkConditions()
        if let n = r.object(o["network"], "network", known: ["kill_rate", "offline_rate", "offline", "relaunch"]) {
            network.killRate = r.number(n, "kill_rate", "network", atLeast: 0, atMost: 1) ?? 0
            network.offlineRate = r.number(n, "offline_rate", "network", atLeast: 0, atMost: 1) ?? 0
            if let d = n["offline"] { network.offline = parseDistribution(d, path: "network.offline", r) ?? network.offline }
            if let d = n["relaunch"] { network.relaunch = parseDistribution(d, path: "network.relaunch", r) ?? network.relaunch }
        }

        let scenarios = parseScenarios(o["scenarios"], durationS: duration, r)
        var thresholds: [String: [String]] = [:]
        if let t = r.object(o["thresholds"], "thresholds", known: Set((o["thresholds"]?.object ?? [:]).keys)) {
            for k in t.keys.sorted() {
                guard ThresholdMetrics.isKnown(k, scenarios: scenarios.map(\.name)) else {
                    r.issue("thresholds.\(k)", "no metric '\(k)' (expected \(ThresholdMetrics.expected))")
                    continue
                }
                guard let list = t[k]!.array, list.allSatisfy({ $0.string != nil }) else {
                    r.issue("thresholds.\(k)", "must be an array of strings like \"p99 < 8000\"")
                    continue
                }
                let exprs = list.compactMap(\.string)
                for (i, e) in exprs.enumerated() {
                    if let problem = ThresholdSyntax.problem(e) { r.issue("thresholds.\(k)[\(i)]", problem) }
                }
                thresholds[k] = exprs
            }
        }
        let maxLag = r.number(o, "max_lag_ms", "", greaterThan: 0) ?? 100
        let window = r.number(o, "window_s", "", greaterThan: 0, atMost: 3600) ?? 1
        var debug: DebugHooks?
        if let d = r.object(o["debug"], "debug", known: ["stall_at_s", "stall_s"]) {
            let at = r.number(d, "stall_at_s", "debug", required: true, atLeast: 0)
            let length = r.number(d, "stall_s", "debug", required: true, greaterThan: 0, atMost: 60)
            if let at, let length { debug = DebugHooks(stallAtS: at, stallS: length) }
        }
        let checks = parseChecks(o["checks"], r)
        var minEffect = 0.05, minAbsoluteMs = 10.0
        if let g = r.object(o["regression"], "regression", known: ["min_effect", "min_abs_ms"]) {
            minEffect = r.number(g, "min_effect", "regression", atLeast: 0, atMost: 1) ?? minEffect
            minAbsoluteMs = r.number(g, "min_abs_ms", "regression", atLeast: 0) ?? minAbsoluteMs
        }
        let population = PopulationSpec.parse(o["population"], r)
        let capacity = CapacitySettings.parse(o["capacity"], profileMaxLagMs: maxLag, r)
        let popScenarios = attachPopulation(population, seed: seed, to: scenarios, r)
        if !r.issues.isEmpty { throw ProfileError(file: file, issues: r.issues) }
        var behaviour = Behaviour(thinkTimes: thinkTimes, defaultThinkTime: defaultThink, probabilities: probabilities,
                                  timeScale: timeScale, clipMix: clipMix, maxReRecords: maxReRecords)
        // The users see the injected network trouble through their behaviour (flows 4 and 6).
        behaviour.killRate = network.killRate
        behaviour.offlineRate = network.offlineRate
        behaviour.offlineDuration = network.offline
        behaviour.relaunchDelay = network.relaunch
        return Profile(name: name, description: o["description"]?.string ?? "", seed: seed, durationS: duration, graceS: grace,
                       target: target, stack: o["stack"], client: client, corpusDir: corpusDir, behaviour: behaviour,
                       network: network, scenarios: popScenarios, thresholds: thresholds, maxLagMs: maxLag, windowS: window,
                       debug: debug, checks: checks, minEffect: minEffect, minAbsoluteMs: minAbsoluteMs,
                       hashBasis: JSONValue.object(o.filter { !unhashed.contains($0.key) }).serialized(),
                       population: population, capacity: capacity)
    }

    static func parseScenarios(_ v: JSONValue?, durationS: Double, _ r: ProfileReader) -> [Scenario] {
        guard let v else { r.issue("scenarios", "is required"); return [] }
        guard let arr = v.array else { r.issue("scenarios", "must be an array"); return [] }
        if arr.isEmpty { r.issue("scenarios", "must have at least one scenario") }
        var out: [Scenario] = []
        var names = Set<String>()
        for (i, s) in arr.enumerated() {
            let p = "scenarios[\(i)]"
            guard let so = r.object(s, p, known: ["name", "start_s", "model", "journeys", "cohorts", "amplifiers"]) else { continue }
            let name = r.string(so, "name", p) ?? "scenario\(i)"
            if !names.insert(name).inserted { r.issue("\(p).name", "duplicate scenario name '\(name)'") }
            let start = r.number(so, "start_s", p, atLeast: 0) ?? 0
            if start >= durationS {
                let cap = durationS == durationS.rounded() ? String(Int(durationS)) : String(durationS)
                r.issue("\(p).start_s", "must be < duration_s (\(cap)): no user of this scenario could ever start")
            }
            let model = WorkloadModelConfig.parse(so["model"], path: "\(p).model", reader: r)
            // `journeys` may be left out when `cohorts` is given: then `journeys` is empty and each
            // cohort walks its default mix (`Population.defaultJourneyWeights`).
            // A `population` scenario draws cohorts and journeys from the population section.
            let cohortsGiven = !(so["cohorts"]?.isNull ?? true) || so["model"]?["type"]?.string == PopulationModel.type
            let journeys = r.journeyWeights(so, "journeys", p, required: !cohortsGiven)
                ?? (cohortsGiven ? [:] : nil)
            let cohorts = r.weights(so, "cohorts", p, allowed: JourneyCatalog.cohorts) ?? ["new": 1]
            if let model, let journeys {
                out.append(Scenario(name: name, startS: start, model: model, journeys: journeys, cohorts: cohorts,
                                    amplifiers: parseAmplifiers(so["amplifiers"], path: "\(p).amplifiers", r)))
            }
        }
        return out
    }

    /// `{"type": "uniform", "min_ms": 500, "max_ms": 1500}` and the other three kinds.
    static func parseDistribution(_ v: JSONValue, path: String, _ r: ProfileReader) -> ThinkTime? {
        guard let o = v.object else { r.issue(path, "must be an object with a \"type\""); return nil }
        switch o["type"]?.string {
        case "constant":
            _ = r.object(v, path, known: ["type", "ms"])
            return r.number(o, "ms", path, required: true, atLeast: 0).map { .constant(ms: $0) }
        case "uniform":
            _ = r.object(v, path, known: ["type", "min_ms", "max_ms"])
            guard let lo = r.number(o, "min_ms", path, required: true, atLeast: 0),
                  let hi = r.number(o, "max_ms", path, required: true, atLeast: 0) else { return nil }
            if hi < lo { r.issue("\(path).max_ms", "must be >= min_ms (\(lo))"); return nil }
            return .uniform(minMs: lo, maxMs: hi)
        case "exponential":
            _ = r.object(v, path, known: ["type", "mean_ms"])
            return r.number(o, "mean_ms", path, required: true, greaterThan: 0).map { .exponential(meanMs: $0) }
        case "lognormal":
            _ = r.object(v, path, known: ["type", "median_ms", "sigma"])
            guard let m = r.number(o, "median_ms", path, required: true, greaterThan: 0),
                  let s = r.number(o, "sigma", path, required: true, atLeast: 0, atMost: 5) else { return nil }
            return .lognormal(medianMs: m, sigma: s)
        default:
            r.issue("\(path).type", "must be one of constant, uniform, exponential, lognormal")
            return nil
        }
    }

    /// The planned duration: the latest scenario end, capped by `duration_s`.
    public var plannedDurationS: Double {
        min(durationS, scenarios.map { $0.startS + $0.model.model.plannedDurationS }.max() ?? durationS)
    }
}
