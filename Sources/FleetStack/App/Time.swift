import FleetCore
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
/// The one rule is FleetCore's, shared with the bench's streak checks.
typealias UserTimeZone = LocalTimeZone

extension LocalTimeZone {
    init(_ raw: String?) { self.init(raw ?? "") }
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
