import Foundation
import Synchronization

/// A timezone as the API names it: an IANA name or a `±HH:MM` offset; UTC when unknown
/// (API.md "Streak"). Gives the local calendar day of an instant, for streak-day checks.
public struct LocalTimeZone: Sendable {
    public let identifier: String
    private let fixedOffsetS: Int?
    private let zone: TimeZone?

    public init(_ raw: String) {
        let s = Self.trimmed(raw)
        if let off = Self.parseOffset(s) {
            identifier = s; fixedOffsetS = off; zone = nil
        } else if !s.isEmpty, let tz = Self.named(s) {
            identifier = s; fixedOffsetS = nil; zone = tz
        } else {
            identifier = "UTC"; fixedOffsetS = 0; zone = nil
        }
    }

    /// `raw` without leading and trailing whitespace (`CharacterSet.whitespaces`). A name whose
    /// first and last bytes are visible ASCII has none to trim, and is every name in practice:
    /// Foundation's trim costs ~10k instructions on Linux, paid by every checked user.
    static func trimmed(_ raw: String) -> String {
        if let f = raw.utf8.first, let l = raw.utf8.last, (0x21...0x7e).contains(f), (0x21...0x7e).contains(l) { return raw }
        return raw.trimmingCharacters(in: .whitespaces)
    }

    /// Foundation's zone of an IANA name, looked up once per name per process: every checked
    /// user builds one, and `TimeZone(identifier:)` reads and parses the zone's file each time.
    private static let zones = Mutex<[String: TimeZone?]>([:])

    private static func named(_ name: String) -> TimeZone? {
        if let known = zones.withLock({ $0[name] }) { return known }
        let tz = TimeZone(identifier: name)
        zones.withLock { $0[name] = tz }
        return tz
    }

    /// `+05:45` → 20700; anything else nil.
    public static func parseOffset(_ s: String) -> Int? {
        // Over the string's buffer, each two-byte part read as `Int(_:)` reads it (a sign
        // allowed): an array and two strings per user made were most of a user's timezone.
        var s = s
        return s.withUTF8 { b -> Int? in
            guard b.count == 6, b[0] == 43 || b[0] == 45, b[3] == 58,
                  let h = DecimalInt.parse(UnsafeBufferPointer(rebasing: b[1..<3])),
                  let m = DecimalInt.parse(UnsafeBufferPointer(rebasing: b[4..<6])), h <= 14, m < 60 else { return nil }
            return (h * 3600 + m * 60) * (b[0] == 45 ? -1 : 1)
        }
    }

    /// `20700` → `+05:45`.
    public static func formatOffset(seconds: Int) -> String {
        let a = abs(seconds) / 60
        let h = a / 60, m = a % 60
        return (seconds < 0 ? "-" : "+") + (h < 10 ? "0" : "") + String(h) + ":" + (m < 10 ? "0" : "") + String(m)
    }

    public func offsetSeconds(atMs ms: Int64) -> Int {
        if let fixedOffsetS { return fixedOffsetS }
        return zone?.secondsFromGMT(for: Date(timeIntervalSince1970: Double(ms) / 1000)) ?? 0
    }

    /// Days since 1970-01-01 in local time of the instant `ms` (floor division).
    public func localDay(atMs ms: Int64) -> Int64 {
        let local = ms + Int64(offsetSeconds(atMs: ms)) * 1000
        return local >= 0 ? local / 86_400_000 : -((-local + 86_400_000 - 1) / 86_400_000)
    }
}
