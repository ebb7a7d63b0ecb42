import FleetClient
import FleetCore
import FleetMetrics

/// `one_settlement_per_session`, `replay_identical`, `streak_once_per_local_day`: judged on every
/// answer of `POST /sessions/{id}/complete` and on `GET /me`'s stats.
extension UserLog {
    mutating func settlementAnswered(session id: String, _ e: Exchange, seen: Seen, day: ClosedRange<Int64>?) -> [Finding] {
        var out: [Finding] = []
        let overlap = otherCompleteOverlaps(id, sent: e.sent, received: e.received)
        noteComplete(session: id, sent: e.sent, received: e.received)
        guard let status = e.status, status < 500 else {
            // No answer, or a server error: the settlement may have committed.
            sessions[id, default: SessionFacts(createdAt: e.sent)].completeInDoubt = true
            streak = .unknown
            return out
        }
        guard (200..<300).contains(status), let body = e.body?.object,
              let award = body["xp_awarded"]?.int, let total = body["xp_total"]?.int,
              let replayed = body["replayed"]?.bool else { return out }
        var facts = sessions[id] ?? SessionFacts(createdAt: e.received)
        let wasInDoubt = facts.completeInDoubt
        facts.completeInDoubt = false
        facts.finished = facts.finished ?? seen
        if let first = facts.settlement {
            // Compared as bytes: `==` on values or on Strings takes two spellings of one Unicode
            // text (é, e + ◌́) for the same answer.
            let expected = SettlementInfo.canonicalBytes(first.body), canonical = SettlementInfo.canonicalBytes(body)
            if expected != canonical {
                out.append(Finding(invariant: .replayIdentical,
                                   detail: "session \(id): settlement differs from the first one seen (#\(first.seen.seq)): expected \(String(decoding: expected, as: UTF8.self)), seen \(String(decoding: canonical, as: UTF8.self))",
                                   seqs: [first.seen.seq, seen.seq]))
            }
        } else {
            facts.settlement = (body, seen)
        }
        if !replayed, let earlier = facts.firstSettlement {
            out.append(Finding(invariant: .oneSettlementPerSession,
                               detail: "session \(id) settled twice: answers #\(earlier.seq) and #\(seen.seq) both say replayed: false",
                               seqs: [earlier.seq, seen.seq]))
        }
        let previousAward = facts.award
        if facts.award == nil { facts.award = award }
        if !replayed && facts.firstSettlement == nil { facts.firstSettlement = seen }
        sessions[id] = facts
        guard !replayed, previousAward == nil, !wasInDoubt else {
            if wasInDoubt || replayed && previousAward == nil { streak = .unknown }
            return out
        }
        // A first settlement, seen answered: XP ledger, then the streak chain.
        if !overlap, !anyCompleteInDoubt {
            if let base = xpBaseline {
                let expected = base + awardSum
                if total != expected {
                    out.append(Finding(invariant: .oneSettlementPerSession,
                                       detail: "session \(id): xp_total \(total), expected \(expected) (XP before \(base) + the awards of \(sessions.values.filter { $0.award != nil }.count) distinct settled sessions)",
                                       seqs: [seen.seq]))
                    xpBaseline = total - awardSum  // judge later answers against the stack's own new total
                }
            } else {
                xpBaseline = total - awardSum
            }
        } else if overlap {
            streak = .unknown
        }
        out += streakJudged(session: id, body: body, seen: seen, day: day, overlap: overlap)
        return out
    }

    /// The streak of a first settlement against the last one in server order.
    private mutating func streakJudged(session id: String, body: JSONObject, seen: Seen, day: ClosedRange<Int64>?,
                                       overlap: Bool) -> [Finding] {
        guard let kind = sessions[id]?.kind else { streak = .unknown; return [] }
        guard kind != "diagnostic" else { return [] }  // settles 0 XP, no streak
        guard let s = body["streak"]?.object, let current = s["current"]?.int, let extended = s["extended"]?.bool else {
            streak = .unknown; return []
        }
        defer {
            if let day, day.lowerBound == day.upperBound, !overlap { streak = .after(day: day.lowerBound, current: current, seen: seen) }
            else { streak = .unknown }
        }
        guard !overlap, let day, day.lowerBound == day.upperBound else { return [] }
        let today = day.lowerBound
        switch streak {
        case .unknown: return []
        case .fresh:
            if !extended || current != 1 {
                return [Finding(invariant: .streakOncePerLocalDay,
                                detail: "first settlement (session \(id)) on local day \(Self.dayString(today)): expected streak 1 extended, seen \(current) extended \(extended)",
                                seqs: [seen.seq])]
            }
        case let .after(last, lastCurrent, lastSeen):
            guard seen.sent > lastSeen.received else { return [] }
            if today == last, extended || current != lastCurrent {
                return [Finding(invariant: .streakOncePerLocalDay,
                                detail: "session \(id): a second settlement on local day \(Self.dayString(today)) (\(timezone.identifier)) grew the streak: expected \(lastCurrent) not extended, seen \(current) extended \(extended) (previous #\(lastSeen.seq))",
                                seqs: [lastSeen.seq, seen.seq])]
            }
            if today > last {
                let expected = today == last + 1 ? lastCurrent + 1 : 1
                if !extended || current != expected {
                    return [Finding(invariant: .streakOncePerLocalDay,
                                    detail: "session \(id): first settlement of local day \(Self.dayString(today)) (\(timezone.identifier); previous #\(lastSeen.seq) on \(Self.dayString(last))): expected streak \(expected) extended, seen \(current) extended \(extended)",
                                    seqs: [lastSeen.seq, seen.seq])]
                }
            }
        }
        return []
    }

    /// `GET /me`'s stats.xp against the ledger, when no settlement is in flight or in doubt.
    mutating func meAnswered(_ e: Exchange, seen: Seen) -> [Finding] {
        guard e.succeeded, let stats = e.body?["stats"]?.object, let xp = stats["xp"]?.int else { return [] }
        guard !otherCompleteOverlaps(nil, sent: e.sent, received: e.received), !anyCompleteInDoubt else { return [] }
        guard let base = xpBaseline else { xpBaseline = xp - awardSum; return [] }
        let expected = base + awardSum
        guard xp != expected else { return [] }
        xpBaseline = xp - awardSum
        return [Finding(invariant: .oneSettlementPerSession,
                        detail: "GET /me stats.xp \(xp), expected \(expected) (XP before \(base) + the awards of the distinct sessions settled)",
                        seqs: [seen.seq])]
    }

    static func dayString(_ day: Int64) -> String { String(RFC3339.format(millis: day * 86_400_000).prefix(10)) }
}
