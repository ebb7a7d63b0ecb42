import Foundation
import FleetCore

/// Everything that shapes the reference stack's behaviour; every field has a default.
///
/// Decodable from a JSON file (`fleet stack --config FILE`): missing keys keep their defaults and
/// an unknown key is an error that names it, so that a typo never silently does nothing.
public struct StackSettings: Sendable, Codable, Equatable {
    /// Loopback address to listen on.
    public var host = "127.0.0.1"
    /// Port to listen on; 0 picks a free one.
    public var port = 0
    /// SQLite file; nil makes a fresh temporary file that is removed on stop.
    public var dbPath: String? = nil
    /// Size of the assessment worker pool.
    public var workers = 4
    /// Median of the lognormal assessment service time, milliseconds (all stages together).
    public var assessmentMedianMs = 300.0
    /// Sigma of the lognormal assessment service time.
    public var assessmentSigma = 0.3
    /// Per-stage service times: when set, `transcribing` and `assessing` each draw
    /// lognormal(median, sigma) instead of splitting the overall draw 40/60.
    public var transcribingMedianMs: Double? = nil
    public var transcribingSigma: Double? = nil
    public var assessingMedianMs: Double? = nil
    public var assessingSigma: Double? = nil
    /// Submitted attempts waiting for a worker beyond which submit answers 503.
    public var maxQueue = 10_000
    /// Lifetime of an access token, seconds.
    public var accessTokenLifetimeS = 900
    /// HMAC key of sandbox signed transactions.
    public var sandboxKey = "sandbox-secret"
    /// Entitlement of a new user: "none", "trial" or "active".
    public var newUserEntitlement = "none"
    /// Clients signing in with an older `app_version` get 426 on every route but /config.
    public var minAppVersion = "1.0.0"
    /// Lifetime of a presigned upload URL, seconds.
    public var uploadURLLifetimeS = 600
    /// Seed of the stack's own random choices (service times).
    public var seed: UInt64 = 1
    /// Largest accepted upload, bytes.
    public var maxUploadBytes = 5_000_000
    /// Largest accepted JSON request body, bytes.
    public var maxJSONBodyBytes = 65_536
    /// Share of assessments that fail with `retryable: true` (a transient backend error).
    public var retryableFailureFraction = 0.0
    /// Time from an assessed attempt to its exemplar being `ready`, milliseconds.
    public var exemplarDelayMs = 1_500.0
    /// Time from the assessed diagnostic to the plan being ready (`404 plan_not_ready` before), milliseconds.
    public var planDelayMs = 2_000.0
    /// Grace period after a subscription's expiry, seconds (0: straight to `expired`).
    public var gracePeriodS = 0
    /// Sandbox acceleration: a transaction's duration (expires − purchase) is divided by this.
    public var sandboxTimeScale = 1.0
    /// How long recorded audio can be fetched after upload, seconds (`410 gone` after).
    public var audioRetentionS = 7 * 86_400
    /// Per-user token bucket: sustained requests per second (0 disables rate limiting).
    public var rateLimitPerSecond = 50.0
    /// Per-user token bucket: burst size.
    public var rateLimitBurst = 100.0
    /// Named concurrency bugs to switch on (see README and `StackBug`).
    public var bugs: [StackBug] = []
    /// Share of submits that `lost-submit` acknowledges and never assesses.
    public var lostSubmitFraction = 0.2
    /// Remember audio verdicts by the upload's verified sha256, so the same clip is decoded once
    /// (identical bytes give identical features and scores). Off: every upload is decoded, for a
    /// run that wants the stack to spend real decode CPU per upload.
    public var verdictCache = true
    /// Practice languages the stack accepts, primary first-choice order (BCP 47 codes with distinct
    /// primary subtags); articles are tagged with these codes by primary subtag. The default is
    /// the app's own (seeds/001, Settings · language).
    public var practiceLanguages = ["en", "zh-Hans"]
    /// UI locales the stack accepts in `PATCH /me`.
    public var uiLocales = ["en", "zh-Hans"]
    /// Whether `GET /config` lists the two above (`supported_practice_languages`,
    /// `supported_ui_locales`); false plays a server whose config lacks them, so that clients
    /// fall back to their bundled default.
    public var configListsLanguages = true
    /// The poll policy `GET /config` tells apps (ms): a finer one lets a benchmark see small
    /// changes in assessment time that the default 2 s first poll would round away.
    public var pollInitialMs = 2_000.0
    public var pollMaxMs = 5_000.0
    /// Injected faults by route template (`"GET /home"`, `"POST /sessions/{id}/complete"`, or `"*"`).
    public var faults: [String: RouteFault] = [:]

    public init() {}

    enum CodingKeys: String, CodingKey, CaseIterable {
        case host, port, dbPath, workers, assessmentMedianMs, assessmentSigma, maxQueue
        case transcribingMedianMs, transcribingSigma, assessingMedianMs, assessingSigma
        case accessTokenLifetimeS, sandboxKey, newUserEntitlement, minAppVersion, uploadURLLifetimeS, seed
        case maxUploadBytes, maxJSONBodyBytes, retryableFailureFraction, exemplarDelayMs, planDelayMs, gracePeriodS
        case sandboxTimeScale, audioRetentionS, rateLimitPerSecond, rateLimitBurst, bugs, lostSubmitFraction, faults
        case verdictCache, practiceLanguages, uiLocales, configListsLanguages, pollInitialMs, pollMaxMs
    }

    /// Whether the named bug is switched on.
    public func bug(_ bug: StackBug) -> Bool { bugs.contains(bug) }

    public init(from decoder: Decoder) throws {
        try StrictKeys.check(decoder, known: CodingKeys.allCases.map(\.rawValue), what: "unknown setting")
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let d = StackSettings()
        host = try c.decodeIfPresent(String.self, forKey: .host) ?? d.host
        port = try c.decodeIfPresent(Int.self, forKey: .port) ?? d.port
        dbPath = try c.decodeIfPresent(String.self, forKey: .dbPath) ?? d.dbPath
        workers = try c.decodeIfPresent(Int.self, forKey: .workers) ?? d.workers
        assessmentMedianMs = try c.decodeIfPresent(Double.self, forKey: .assessmentMedianMs) ?? d.assessmentMedianMs
        assessmentSigma = try c.decodeIfPresent(Double.self, forKey: .assessmentSigma) ?? d.assessmentSigma
        maxQueue = try c.decodeIfPresent(Int.self, forKey: .maxQueue) ?? d.maxQueue
        transcribingMedianMs = try c.decodeIfPresent(Double.self, forKey: .transcribingMedianMs)
        transcribingSigma = try c.decodeIfPresent(Double.self, forKey: .transcribingSigma)
        assessingMedianMs = try c.decodeIfPresent(Double.self, forKey: .assessingMedianMs)
        assessingSigma = try c.decodeIfPresent(Double.self, forKey: .assessingSigma)
        accessTokenLifetimeS = try c.decodeIfPresent(Int.self, forKey: .accessTokenLifetimeS) ?? d.accessTokenLifetimeS
        sandboxKey = try c.decodeIfPresent(String.self, forKey: .sandboxKey) ?? d.sandboxKey
        newUserEntitlement = try c.decodeIfPresent(String.self, forKey: .newUserEntitlement) ?? d.newUserEntitlement
        minAppVersion = try c.decodeIfPresent(String.self, forKey: .minAppVersion) ?? d.minAppVersion
        uploadURLLifetimeS = try c.decodeIfPresent(Int.self, forKey: .uploadURLLifetimeS) ?? d.uploadURLLifetimeS
        seed = try c.decodeIfPresent(UInt64.self, forKey: .seed) ?? d.seed
        maxUploadBytes = try c.decodeIfPresent(Int.self, forKey: .maxUploadBytes) ?? d.maxUploadBytes
        maxJSONBodyBytes = try c.decodeIfPresent(Int.self, forKey: .maxJSONBodyBytes) ?? d.maxJSONBodyBytes
        retryableFailureFraction = try c.decodeIfPresent(Double.self, forKey: .retryableFailureFraction) ?? d.retryableFailureFraction
        exemplarDelayMs = try c.decodeIfPresent(Double.self, forKey: .exemplarDelayMs) ?? d.exemplarDelayMs
        planDelayMs = try c.decodeIfPresent(Double.self, forKey: .planDelayMs) ?? d.planDelayMs
        gracePeriodS = try c.decodeIfPresent(Int.self, forKey: .gracePeriodS) ?? d.gracePeriodS
        sandboxTimeScale = try c.decodeIfPresent(Double.self, forKey: .sandboxTimeScale) ?? d.sandboxTimeScale
        audioRetentionS = try c.decodeIfPresent(Int.self, forKey: .audioRetentionS) ?? d.audioRetentionS
        rateLimitPerSecond = try c.decodeIfPresent(Double.self, forKey: .rateLimitPerSecond) ?? d.rateLimitPerSecond
        rateLimitBurst = try c.decodeIfPresent(Double.self, forKey: .rateLimitBurst) ?? d.rateLimitBurst
        // Unknown names are refused here, by `StackBug.parse`, with the list of known ones.
        do { bugs = try c.decodeIfPresent([String].self, forKey: .bugs).map { try $0.map(StackBug.parse) } ?? d.bugs } catch let e as StackSettingsError {
            throw StackSettingsError("'bugs': \(e.description)")
        }
        lostSubmitFraction = try c.decodeIfPresent(Double.self, forKey: .lostSubmitFraction) ?? d.lostSubmitFraction
        faults = try c.decodeIfPresent([String: RouteFault].self, forKey: .faults) ?? d.faults
        verdictCache = try c.decodeIfPresent(Bool.self, forKey: .verdictCache) ?? d.verdictCache
        practiceLanguages = try c.decodeIfPresent([String].self, forKey: .practiceLanguages) ?? d.practiceLanguages
        uiLocales = try c.decodeIfPresent([String].self, forKey: .uiLocales) ?? d.uiLocales
        configListsLanguages = try c.decodeIfPresent(Bool.self, forKey: .configListsLanguages) ?? d.configListsLanguages
        pollInitialMs = try c.decodeIfPresent(Double.self, forKey: .pollInitialMs) ?? d.pollInitialMs
        pollMaxMs = try c.decodeIfPresent(Double.self, forKey: .pollMaxMs) ?? d.pollMaxMs
    }

    /// Reads settings from a JSON file; errors name the file and the offending key.
    public static func load(path: String) throws -> StackSettings {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw StackSettingsError("\(path): cannot read the file")
        }
        do {
            let s = try JSONDecoder().decode(StackSettings.self, from: data)
            try s.validate()
            return s
        } catch let e as StackSettingsError {
            throw StackSettingsError("\(path): \(e.description)")
        } catch DecodingError.typeMismatch(let type, let ctx), DecodingError.valueNotFound(let type, let ctx) {
            let key = ctx.codingPath.map(\.stringValue).joined(separator: ".")
            throw StackSettingsError("\(path): '\(key)' should be \(type)")
        } catch {
            throw StackSettingsError("\(path): not a JSON object of settings (\(error))")
        }
    }

    /// Checks ranges and enumerations; the error names the field and what was expected.
    public func validate() throws {
        func need(_ ok: Bool, _ field: String, _ expected: String) throws {
            if !ok { throw StackSettingsError("'\(field)' must be \(expected)") }
        }
        try need(host == "127.0.0.1" || host == "::1" || host == "localhost", "host", "a loopback address (127.0.0.1 or ::1)")
        try need((0...65_535).contains(port), "port", "0…65535")
        try need((1...1_024).contains(workers), "workers", "1…1024")
        try need(assessmentMedianMs >= 0 && assessmentMedianMs <= 600_000, "assessmentMedianMs", "0…600000")
        try need(assessmentSigma >= 0 && assessmentSigma <= 5, "assessmentSigma", "0…5")
        try need(pollInitialMs >= 10 && pollInitialMs <= 60_000, "pollInitialMs", "10…60000")
        try need(pollMaxMs >= pollInitialMs && pollMaxMs <= 60_000, "pollMaxMs", "pollInitialMs…60000")
        try need(maxQueue >= 0, "maxQueue", "≥ 0")
        for (name, v) in [("transcribingMedianMs", transcribingMedianMs), ("assessingMedianMs", assessingMedianMs)] {
            try need((v ?? 0) >= 0 && (v ?? 0) <= 600_000, name, "0…600000")
        }
        for (name, v) in [("transcribingSigma", transcribingSigma), ("assessingSigma", assessingSigma)] {
            try need((v ?? 0) >= 0 && (v ?? 0) <= 5, name, "0…5")
        }
        let tenYearsS = 10 * 366 * 86_400
        try need((1...tenYearsS).contains(accessTokenLifetimeS), "accessTokenLifetimeS", "1…\(tenYearsS)")
        try need(!sandboxKey.isEmpty, "sandboxKey", "non-empty")
        try need(["none", "trial", "active"].contains(newUserEntitlement), "newUserEntitlement", "none, trial or active")
        try need(AppVersion(minAppVersion) != nil, "minAppVersion", "a dotted version like 1.0.0")
        try need((1...tenYearsS).contains(uploadURLLifetimeS), "uploadURLLifetimeS", "1…\(tenYearsS)")
        try need((1...1_073_741_824).contains(maxUploadBytes), "maxUploadBytes", "1…1073741824")
        try need((1_024...16_777_216).contains(maxJSONBodyBytes), "maxJSONBodyBytes", "1024…16777216")
        try need((0...1).contains(retryableFailureFraction), "retryableFailureFraction", "0…1")
        try need(exemplarDelayMs >= 0 && exemplarDelayMs <= 86_400_000, "exemplarDelayMs", "0…86400000")
        try need(planDelayMs >= 0 && planDelayMs <= 86_400_000, "planDelayMs", "0…86400000")
        try need((0...tenYearsS).contains(gracePeriodS), "gracePeriodS", "0…\(tenYearsS)")
        try need(sandboxTimeScale >= 1 && sandboxTimeScale <= 1e9, "sandboxTimeScale", "1…1e9")
        try need((0...tenYearsS).contains(audioRetentionS), "audioRetentionS", "0…\(tenYearsS)")
        try need(rateLimitPerSecond >= 0 && rateLimitPerSecond <= 1e9, "rateLimitPerSecond", "0…1e9")
        try need(rateLimitBurst >= 1 && rateLimitBurst <= 1e9, "rateLimitBurst", "1…1e9")
        try need((0...1).contains(lostSubmitFraction), "lostSubmitFraction", "0…1")
        for (route, f) in faults.sorted(by: { $0.key < $1.key }) { try f.validate(route: route) }
        try Self.validateCodes(practiceLanguages, field: "practiceLanguages", distinctPrimary: true)
        try Self.validateCodes(uiLocales, field: "uiLocales", distinctPrimary: false)
    }

    /// A non-empty list of distinct language tags (letters, digits, hyphens, ≤ 35 characters);
    /// practice languages also need distinct primary subtags, so that an article's tag maps to one.
    private static func validateCodes(_ codes: [String], field: String, distinctPrimary: Bool) throws {
        let expected = "a non-empty list of distinct language tags like \"en\" or \"zh-Hans\""
        guard !codes.isEmpty, Set(codes).count == codes.count else { throw StackSettingsError("'\(field)' must be \(expected)") }
        for code in codes {
            let ok = (1...35).contains(code.count) && code.first!.isLetter
                && code.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }
            if !ok { throw StackSettingsError("'\(field)': '\(code)' is not a language tag (\(expected))") }
        }
        let primaries = codes.map(LanguageTag.primary)
        if distinctPrimary, Set(primaries).count != primaries.count {
            throw StackSettingsError("'\(field)' must not name one language twice (primary subtags \(primaries.joined(separator: ", ")))")
        }
    }
}

/// A settings problem, one line naming the field (and the file when there is one).
public struct StackSettingsError: Error, CustomStringConvertible, Sendable {
    public let description: String
    public init(_ d: String) { description = d }
}

/// Faults injected on one route: added latency (lognormal by median and sigma; sigma 0 is a fixed
/// delay) and a fraction of requests answered with an error instead of being served.
public struct RouteFault: Sendable, Codable, Equatable {
    public var latencyMedianMs = 0.0
    public var latencySigma = 0.0
    public var errorFraction = 0.0
    /// 500 (`internal`) or 503 (`unavailable`, with Retry-After); both are retryable.
    public var errorStatus = 503

    public init(latencyMedianMs: Double = 0, latencySigma: Double = 0, errorFraction: Double = 0, errorStatus: Int = 503) {
        self.latencyMedianMs = latencyMedianMs
        self.latencySigma = latencySigma
        self.errorFraction = errorFraction
        self.errorStatus = errorStatus
    }

    enum CodingKeys: String, CodingKey, CaseIterable { case latencyMedianMs, latencySigma, errorFraction, errorStatus }

    public init(from decoder: Decoder) throws {
        try StrictKeys.check(decoder, known: CodingKeys.allCases.map(\.rawValue), what: "faults: unknown key")
        let c = try decoder.container(keyedBy: CodingKeys.self)
        latencyMedianMs = try c.decodeIfPresent(Double.self, forKey: .latencyMedianMs) ?? 0
        latencySigma = try c.decodeIfPresent(Double.self, forKey: .latencySigma) ?? 0
        errorFraction = try c.decodeIfPresent(Double.self, forKey: .errorFraction) ?? 0
        errorStatus = try c.decodeIfPresent(Int.self, forKey: .errorStatus) ?? 503
    }

    func validate(route: String) throws {
        let parts = route.split(separator: " ")
        guard route == "*" || (parts.count == 2 && parts[1].hasPrefix("/")) else {
            throw StackSettingsError("'faults': key '\(route)' must be \"METHOD /path/{param}\" or \"*\"")
        }
        guard latencyMedianMs >= 0, latencyMedianMs <= 60_000 else { throw StackSettingsError("'faults.\(route).latencyMedianMs' must be 0…60000") }
        guard latencySigma >= 0, latencySigma <= 5 else { throw StackSettingsError("'faults.\(route).latencySigma' must be 0…5") }
        guard (0...1).contains(errorFraction) else { throw StackSettingsError("'faults.\(route).errorFraction' must be 0…1") }
        guard errorStatus == 500 || errorStatus == 503 else { throw StackSettingsError("'faults.\(route).errorStatus' must be 500 or 503") }
    }
}

/// Refuses a JSON object with a key the decoder does not know, naming it and the known ones, so
/// that a typo in a settings file never silently does nothing.
enum StrictKeys {
    private struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    static func check(_ decoder: Decoder, known: [String], what: String) throws {
        let all = try decoder.container(keyedBy: AnyKey.self)
        let knownSet = Set(known)
        if let unknown = all.allKeys.map(\.stringValue).filter({ !knownSet.contains($0) }).sorted().first {
            throw StackSettingsError("\(what) '\(unknown)' (known: \(knownSet.sorted().joined(separator: ", ")))")
        }
    }
}
