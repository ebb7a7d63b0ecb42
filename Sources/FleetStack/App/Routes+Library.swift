import Foundation
import FleetCore
import FleetSQLite

/// The library (`GET /articles`) and growth (`GET /growth`).
extension StackApp {
    static let articleStatuses = ["all", "locked", "unlocked", "new", "in_progress", "completed", "not_completed"]
    static let pageSize = 10

    /// `GET /articles?language=&topic=&status=&cursor=`: filtered pages of 10. A cursor carries the
    /// filters it was issued for and is refused with others.
    func articles(_ c: inout RequestContext) throws -> Reply {
        let q = c.request.query
        let language = q["language"].flatMap { $0.isEmpty ? nil : $0 }
        let topic = q["topic"].flatMap { $0.isEmpty ? nil : $0 }
        let status = q["status"].flatMap { $0.isEmpty ? nil : $0 } ?? "all"
        if let language, !settings.practiceLanguages.contains(language) {
            throw APIError.invalid("'language' must be one of \(settings.practiceLanguages.joined(separator: ", "))")
        }
        if let topic, !catalog.topics.contains(where: { $0.id == topic }) { throw APIError.invalid("'topic': no topic '\(topic)'") }
        guard StackApp.articleStatuses.contains(status) else {
            throw APIError.invalid("'status' must be one of \(StackApp.articleStatuses.joined(separator: ", "))")
        }
        let filterTag = SHA256.hex(Array("\(language ?? "")|\(topic ?? "")|\(status)".utf8)).prefix(12)
        var offset = 0
        if let cursor = q["cursor"], !cursor.isEmpty {
            guard let raw = Base64URL.decode(cursor), case let parts = String(decoding: raw, as: UTF8.self).split(separator: "|"),
                  parts.count == 2, let o = Int(parts[0]), o >= 0 else { throw APIError.invalid("'cursor' is not a cursor this server issued") }
            guard parts[1] == filterTag else { throw APIError.invalid("'cursor' was issued for other filters") }
            offset = o
        }
        // Per-article progress of this user: in progress, completed, best overall.
        var inProgress = Set<String>(), completed = Set<String>(), touched = Set<String>(), best: [String: Int] = [:]
        for r in try db.query("SELECT article_id, stage, overall FROM sessions WHERE user_id = ?", .text(c.user.id)) {
            let a = r.text(0), stage = r.text(1)
            touched.insert(a)
            if stage == "completed" {
                completed.insert(a)
                if let o = r.optionalInt(2) { best[a] = max(best[a] ?? 0, Int(o)) }
            } else if stage != "abandoned" {
                inProgress.insert(a)
            }
        }
        let matching = catalog.articles.filter { a in
            if let language, a.language != language { return false }
            if let topic, a.topic != topic { return false }
            switch status {
            case "locked": return a.locked
            case "unlocked": return !a.locked
            case "new": return !touched.contains(a.id)
            case "in_progress": return inProgress.contains(a.id)
            case "completed": return completed.contains(a.id)
            case "not_completed": return !completed.contains(a.id)
            default: return true
            }
        }
        let page = matching.dropFirst(offset).prefix(StackApp.pageSize)
        let items: [JSONValue] = page.map { a in
            guard case .object(var o) = a.json else { return a.json }
            if let b = best[a.id] { o["best_overall"] = .number(Double(b)) }
            return .object(o)
        }
        let next = offset + page.count
        let cursor: JSONValue = next < matching.count ? .string(Base64URL.encode(Array("\(next)|\(filterTag)".utf8))) : .null
        return .json(200, ["items": .array(items), "next_cursor": cursor])
    }

    /// `GET /growth`: completed daily/free sessions by week (weeks start on Monday in the user's
    /// timezone) and the ten most recent.
    func growth(_ c: inout RequestContext) throws -> Reply {
        let rows = try db.query("""
            SELECT id, completed_at, overall FROM sessions WHERE user_id = ? AND stage = 'completed' AND kind != 'diagnostic'
            AND completed_at IS NOT NULL ORDER BY completed_at DESC
            """, .text(c.user.id))
        var weeks: [Int64: (count: Int, best: Int)] = [:]
        for r in rows {
            let day = c.user.timezone.localDay(atMs: r.int(1))
            // 1970-01-01 was a Thursday: Monday-based week start = day − ((day + 3) mod 7).
            let monday = day - ((day % 7 + 7 + 3) % 7)
            let w = weeks[monday] ?? (0, 0)
            weeks[monday] = (w.count + 1, max(w.best, Int(r.optionalInt(2) ?? 0)))
        }
        let weekJSON: [JSONValue] = weeks.keys.sorted().map { monday in
            let (y, m, d) = RFC3339.civil(fromDays: monday)
            let date = String(format: "%04d-%02d-%02d", Int(y), Int(m), Int(d))
            return ["week_start": .string(date), "sessions": .number(Double(weeks[monday]!.count)),
                    "best_overall": .number(Double(weeks[monday]!.best))]
        }
        let recent: [JSONValue] = rows.prefix(10).map { r in
            ["session_id": .string(r.text(0)), "completed_at": .string(RFC3339.format(millis: r.int(1))),
             "overall": r.optionalInt(2).map { .number(Double($0)) } ?? .null]
        }
        return .json(200, ["weeks": .array(weekJSON), "recent": .array(recent)])
    }
}
