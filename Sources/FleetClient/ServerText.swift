/// Strings the server chose (error codes and messages) on their way into counters and reports.
///
/// A hostile or broken server can send megabytes of text, control characters or markup as an
/// error message; the reports escape HTML and CSV where they write, and here the text is cut to
/// a length a table cell can hold and stripped of control characters, so a report stays readable
/// and a per-code counter cannot be flooded with distinct megabyte keys.
public enum ServerText {
    public static let maxMessage = 200
    public static let maxCode = 48

    /// An error message: control characters become spaces, cut to `maxMessage` characters.
    public static func message(_ s: String) -> String { clean(s, max: maxMessage) }

    /// An error code: API.md's codes are snake_case ASCII; anything else is kept recognisable
    /// but cannot pose as a code of ours (`invalid_code:` prefix), and is cut to `maxCode`.
    public static func code(_ s: String) -> String {
        let ok = !s.isEmpty && s.utf8.count <= maxCode && s.utf8.allSatisfy { b in
            (b >= 0x61 && b <= 0x7a) || (b >= 0x30 && b <= 0x39) || b == 0x5f
        }
        if ok { return s }
        let ascii = String(String.UnicodeScalarView(s.unicodeScalars.prefix(maxCode).map { u in
            (u.value >= 0x21 && u.value < 0x7f) ? u : "?"
        }))
        return "invalid_code:" + ascii
    }

    static func clean(_ s: String, max: Int) -> String {
        var out = String.UnicodeScalarView()
        var n = 0
        for u in s.unicodeScalars {
            if n == max { return String(out) + "…" }
            let v = u.value
            out.append(v < 0x20 || (v >= 0x7f && v < 0xa0) || (v >= 0x2028 && v <= 0x2029) ? " " : u)
            n += 1
        }
        return String(out)
    }
}

/// `Retry-After` (RFC 9110 §10.2.3): delay-seconds or an HTTP-date, as seconds from now.
public enum RetryAfter {
    /// Seconds to wait, or nil when the value is neither form; a date in the past is 0.
    public static func seconds(_ raw: String, nowMillis: Int64) -> Double? {
        let v = raw.trimmingCharacters(in: " ")
        if !v.isEmpty, v.utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2e }), let d = Double(v), d.isFinite {
            return d
        }
        guard let at = httpDateMillis(v) else { return nil }
        return max(0, Double(at - nowMillis) / 1000)
    }

    /// IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), the form RFC 9110 says senders use.
    public static func httpDateMillis(_ s: String) -> Int64? {
        let parts = s.split(separator: " ")
        guard parts.count == 6, parts[0].hasSuffix(","), parts[5] == "GMT",
              let day = Int(parts[1]), let year = Int(parts[3]),
              let month = months.firstIndex(of: String(parts[2])) else { return nil }
        let hms = parts[4].split(separator: ":").compactMap { Int($0) }
        guard hms.count == 3, (1...31).contains(day), (0...23).contains(hms[0]), (0...59).contains(hms[1]),
              (0...60).contains(hms[2]), year >= 1970 else { return nil }
        let days = daysFromCivil(year: year, month: month + 1, day: day)
        return (Int64(days) * 86_400 + Int64(hms[0] * 3600 + hms[1] * 60 + hms[2])) * 1000
    }

    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }
}
