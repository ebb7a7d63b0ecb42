import Foundation

/// Calendar day numbers for streaks and weekly growth. Timestamps themselves are FleetCore's
/// `RFC3339` (the API's one format); only the day arithmetic in a user's timezone is the stack's.
enum DayNumber {
    static let msPerDay: Int64 = 86_400_000

    /// The UTC day (days since 1970-01-01) of the instant `ms`; instants before 1970 fall on
    /// negative days (floor division, not truncation).
    static func utc(atMs ms: Int64) -> Int64 {
        ms >= 0 ? ms / msPerDay : -((-ms + msPerDay - 1) / msPerDay)
    }
}

/// A user's timezone: an IANA name, a `±HH:MM` offset, or UTC when unknown (API.md "Streak").
struct UserTimeZone: Sendable {
    /// The form stored for the user: the IANA identifier or the offset string, "UTC" if unknown.
    let identifier: String
    private let fixedOffsetS: Int?
    private let zone: TimeZone?

    init(_ raw: String?) {
        let s = (raw ?? "").trimmingCharacters(in: .whitespaces)
        if let off = UserTimeZone.parseOffset(s) {
            identifier = s; fixedOffsetS = off; zone = nil
        } else if !s.isEmpty, let tz = TimeZone(identifier: s) {
            identifier = s; fixedOffsetS = nil; zone = tz
        } else {
            identifier = "UTC"; fixedOffsetS = 0; zone = nil
        }
    }

    static func parseOffset(_ s: String) -> Int? {
        let b = Array(s.utf8)
        guard b.count == 6, b[0] == 43 || b[0] == 45, b[3] == 58,
              let h = Int(String(decoding: b[1..<3], as: UTF8.self)),
              let m = Int(String(decoding: b[4..<6], as: UTF8.self)), h <= 14, m < 60 else { return nil }
        return (h * 3600 + m * 60) * (b[0] == 45 ? -1 : 1)
    }

    /// Seconds east of UTC at the instant `ms`.
    func offsetSeconds(atMs ms: Int64) -> Int {
        if let fixedOffsetS { return fixedOffsetS }
        return zone?.secondsFromGMT(for: Date(timeIntervalSince1970: Double(ms) / 1000)) ?? 0
    }

    /// The local calendar day number (days since 1970-01-01 in local time) of the instant `ms`.
    func localDay(atMs ms: Int64) -> Int64 {
        DayNumber.utc(atMs: ms + Int64(offsetSeconds(atMs: ms)) * 1000)
    }
}

/// A dotted numeric version (`1.2.10`), compared component by component.
struct AppVersion: Comparable, Sendable {
    let parts: [Int]

    init?(_ s: String) {
        let comps = s.split(separator: ".", omittingEmptySubsequences: false)
        guard !comps.isEmpty, comps.count <= 4 else { return nil }
        var p: [Int] = []
        for c in comps { guard let n = Int(c), n >= 0 else { return nil }; p.append(n) }
        parts = p
    }

    static func < (a: AppVersion, b: AppVersion) -> Bool {
        for i in 0..<max(a.parts.count, b.parts.count) {
            let x = i < a.parts.count ? a.parts[i] : 0, y = i < b.parts.count ? b.parts[i] : 0
            if x != y { return x < y }
        }
        return false
    }
}

/// Opaque random identifiers with a readable prefix (`ses_3f9a…`).
enum IDs {
    static func make(_ prefix: String) -> String {
        var g = SystemRandomNumberGenerator()
        let a = g.next(), b = g.next() as UInt32
        return prefix + "_" + hex(a, 16) + hex(UInt64(b), 8)
    }

    private static func hex(_ v: UInt64, _ width: Int) -> String {
        let s = String(v, radix: 16)
        return String(repeating: "0", count: max(0, width - s.count)) + s
    }
}
