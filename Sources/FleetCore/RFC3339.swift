/// RFC 3339 UTC timestamps with milliseconds, the API's only time format.
public enum RFC3339 {
    /// `2026-11-29T15:08:48.123Z` for milliseconds since the epoch.
    public static func format(millis: Int64) -> String {
        let days = floorDiv(millis, 86_400_000)
        let msOfDay = millis - days * 86_400_000
        let (y, m, d) = civil(fromDays: days)
        let h = msOfDay / 3_600_000, mi = (msOfDay / 60_000) % 60, s = (msOfDay / 1000) % 60, ms = msOfDay % 1000
        func p(_ v: Int64, _ w: Int) -> String { let t = String(v); return String(repeating: "0", count: max(0, w - t.count)) + t }
        return "\(p(y, 4))-\(p(m, 2))-\(p(d, 2))T\(p(h, 2)):\(p(mi, 2)):\(p(s, 2)).\(p(ms, 3))Z"
    }

    /// Milliseconds since the epoch, or nil when the text is not an RFC 3339 date-time.
    /// Accepts `Z` or a `±HH:MM` offset and any number of fraction digits.
    public static func parseMillis(_ text: String) -> Int64? {
        // Over the string's own UTF-8 buffer: an array copy of every timestamp the API answers
        // with was half of a parse (~250 instructions).
        var text = text
        return text.withUTF8 { parse($0) }
    }

    private static func parse(_ u: UnsafeBufferPointer<UInt8>) -> Int64? {
        func num(_ a: Int, _ n: Int) -> Int64? {
            guard a + n <= u.count else { return nil }
            var v: Int64 = 0
            for i in a..<(a + n) { guard u[i] >= 48, u[i] <= 57 else { return nil }; v = v * 10 + Int64(u[i] - 48) }
            return v
        }
        guard u.count >= 20, let y = num(0, 4), u[4] == 45, let mo = num(5, 2), u[7] == 45, let d = num(8, 2),
              u[10] == 84 || u[10] == 116 || u[10] == 32, let h = num(11, 2), u[13] == 58, let mi = num(14, 2), u[16] == 58,
              let s = num(17, 2), (1...12).contains(mo), (1...31).contains(d), h < 24, mi < 60, s < 61 else { return nil }
        var i = 19
        var ms: Int64 = 0
        if i < u.count, u[i] == 46 {
            i += 1
            var digits = 0
            while i < u.count, u[i] >= 48, u[i] <= 57 {
                if digits < 3 { ms = ms * 10 + Int64(u[i] - 48) }
                digits += 1; i += 1
            }
            guard digits > 0 else { return nil }
            // Scale to milliseconds: "1" is 100 ms, "123456" keeps its first three digits.
            if digits < 3 { for _ in digits..<3 { ms *= 10 } }
        }
        var offsetMin: Int64 = 0
        guard i < u.count else { return nil }
        if u[i] == 90 || u[i] == 122 { i += 1 } else if u[i] == 43 || u[i] == 45, i + 6 <= u.count, let oh = num(i + 1, 2), u[i + 3] == 58, let om = num(i + 4, 2) {
            offsetMin = (oh * 60 + om) * (u[i] == 45 ? -1 : 1)
            i += 6
        } else { return nil }
        guard i == u.count else { return nil }
        let days = daysFromCivil(y, mo, d)
        return ((days * 24 + h) * 60 + mi - offsetMin) * 60_000 + s * 1000 + ms
    }

    static func floorDiv(_ a: Int64, _ b: Int64) -> Int64 { a >= 0 ? a / b : -((-a + b - 1) / b) }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
    public static func daysFromCivil(_ y0: Int64, _ m: Int64, _ d: Int64) -> Int64 {
        let y = m <= 2 ? y0 - 1 : y0
        let era = floorDiv(y, 400)
        let yoe = y - era * 400
        let doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    public static func civil(fromDays z0: Int64) -> (Int64, Int64, Int64) {
        let z = z0 + 719_468
        let era = floorDiv(z, 146_097)
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (m <= 2 ? yoe + era * 400 + 1 : yoe + era * 400, m, d)
    }
}
