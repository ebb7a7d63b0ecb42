import Foundation
import FleetCore

/// Timestamps as the API writes them, and local calendar days for streaks.
enum APITime {
    /// RFC 3339 UTC with milliseconds: `2026-11-29T15:04:05.123Z`.
    static func format(ms: Int64) -> String { RFC3339.format(millis: ms) }

    /// Parses `YYYY-MM-DDTHH:MM:SS(.fff…)?(Z|±HH:MM)` into epoch milliseconds. (Kept here rather
    /// than calling `RFC3339.parseMillis`, which traps on more than three fraction digits; the
    /// stack parses untrusted client input and must never crash.)
    static func parse(_ s: String) -> Int64? {
        let b = Array(s.utf8)
        func num(_ r: Range<Int>) -> Int64? {
            guard r.upperBound <= b.count else { return nil }
            var v: Int64 = 0
            for c in b[r] { guard c >= 48 && c <= 57 else { return nil }; v = v * 10 + Int64(c - 48) }
            return v
        }
        guard b.count >= 20, b[4] == 45, b[7] == 45, b[10] == 84 || b[10] == 116, b[13] == 58, b[16] == 58,
              let y = num(0..<4), let mo = num(5..<7), let d = num(8..<10),
              let h = num(11..<13), let mi = num(14..<16), let se = num(17..<19),
              (1...12).contains(mo), (1...31).contains(d), h < 24, mi < 60, se < 61 else { return nil }
        var i = 19
        var frac: Int64 = 0
        if i < b.count, b[i] == 46 {
            i += 1
            var digits = 0
            while i < b.count, b[i] >= 48, b[i] <= 57 {
                if digits < 3 { frac = frac * 10 + Int64(b[i] - 48) }
                digits += 1; i += 1
            }
            guard digits > 0 else { return nil }
            if digits < 3 { for _ in digits..<3 { frac *= 10 } }
        }
        guard i < b.count else { return nil }
        var offsetMs: Int64 = 0
        if b[i] == 90 || b[i] == 122 { i += 1 } else {
            guard b[i] == 43 || b[i] == 45, let oh = num((i + 1)..<(i + 3)), i + 3 < b.count, b[i + 3] == 58,
                  let om = num((i + 4)..<(i + 6)) else { return nil }
            offsetMs = (oh * 60 + om) * 60_000 * (b[i] == 45 ? -1 : 1)
            i += 6
        }
        guard i == b.count else { return nil }
        let days = daysFromCivil(y: y, m: mo, d: d)
        return days * 86_400_000 + ((h * 60 + mi) * 60 + se) * 1000 + frac - offsetMs
    }

    static func floorDiv(_ a: Int64, _ b: Int64) -> Int64 { a >= 0 ? a / b : -((-a + b - 1) / b) }

    static func daysFromCivil(y y0: Int64, m: Int64, d: Int64) -> Int64 {
        let y = m <= 2 ? y0 - 1 : y0
        let era = floorDiv(y, 400)
        let yoe = y - era * 400
        let doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
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
        APITime.floorDiv(ms + Int64(offsetSeconds(atMs: ms)) * 1000, 86_400_000)
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
