import FleetClient
import FleetCore

/// Steps every journey starts with: sign in (install id kept on the device), config, home.
extension VirtualUser {
    /// `POST /auth/anonymous` when the device has no tokens, then `GET /config` (poll policy,
    /// language codes, force-update gate).
    @inline(never)  // async steps are not inlined: see VirtualUser (frames)
    public func launch() async throws(JourneyStop) {
        reach("auth")
        if credentials.accessToken == nil {
            _ = try expect(await client.signIn(credentials, intended: nextIntended, random: &random))
        }
        reach("config")
        let config = try expect(await client.config(credentials, intended: nextIntended, random: &random))
        device.poll = PollPolicy(config: config)
        device.languages = LanguageSupport(config: config)
        let version = credentials.appVersion ?? client.settings.appVersion
        if let min = config["min_app_version"]?.string, AppVersion.less(version, than: min) {
            throw .failed(step: "config", code: "force_update", message: "app \(version) < \(min)")
        }
    }

    @inline(never)
    public func openHome() async throws(JourneyStop) -> HomeInfo {
        reach("home")
        return try expect(await client.home(credentials, intended: nextIntended, random: &random))
    }
}

/// Dotted version comparison (`1.10.0` > `1.9.3`); missing parts count as zero.
public enum AppVersion {
    /// Parts read as `Int(_:)` reads them (a sign allowed; not a number, or an overflow, is
    /// zero), empty parts skipped as `split` skips them. Part by part over both strings' bytes:
    /// splitting them into arrays of substrings and Ints was ~10k instructions a launch.
    public static func less(_ a: String, than b: String) -> Bool {
        var a = a, b = b
        return a.withUTF8 { x in b.withUTF8 { y in
            var i = 0, j = 0
            while true {
                let p = nextPart(x, &i), q = nextPart(y, &j)
                if p == nil && q == nil { return false }
                if (p ?? 0) != (q ?? 0) { return (p ?? 0) < (q ?? 0) }
            }
        }}
    }

    /// The next non-empty part's value from `at` (nil after the last), `at` moved past it.
    private static func nextPart(_ u: UnsafeBufferPointer<UInt8>, _ at: inout Int) -> Int? {
        let dot = UInt8(ascii: ".")
        while at < u.count && u[at] == dot { at += 1 }
        guard at < u.count else { return nil }
        let start = at
        while at < u.count && u[at] != dot { at += 1 }
        return DecimalInt.parse(UnsafeBufferPointer(rebasing: u[start..<at])) ?? 0
    }
}
