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
    public static func less(_ a: String, than b: String) -> Bool {
        let x = a.split(separator: ".").map { Int($0) ?? 0 }, y = b.split(separator: ".").map { Int($0) ?? 0 }
        for i in 0..<max(x.count, y.count) {
            let p = i < x.count ? x[i] : 0, q = i < y.count ? y[i] : 0
            if p != q { return p < q }
        }
        return false
    }
}
