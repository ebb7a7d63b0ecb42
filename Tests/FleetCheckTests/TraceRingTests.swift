import FleetClient
import FleetCore
import XCTest
@testable import FleetCheck

/// A ring compacted for a long rest keeps its entries, in order, as a trace shows them, in
/// storage of their own size, and lets go of whole answers longer than their excerpt.
final class TraceRingTests: XCTestCase {
    private func entry(_ seq: Int, answer: AnswerSnippet = .none) -> TraceEntry {
        TraceEntry(seq: seq, intendedMs: Double(seq), actualMs: Double(seq), endMs: Double(seq) + 1, what: "GET /home",
                   path: "/home", status: 200, answer: answer)
    }

    func testCompactingKeepsEntriesInOrderInStorageOfTheirSize() {
        var ring = TraceRing(capacity: 128)
        for seq in 1...3 { ring.append(entry(seq)) }
        XCTAssertGreaterThanOrEqual(ring.reserved, 16, "a walk's first entries have room reserved at once")
        ring.compact()
        XCTAssertEqual(ring.reserved, 3)
        XCTAssertEqual(ring.entries.map(\.seq), [1, 2, 3])
        ring.append(entry(4))
        XCTAssertEqual(ring.entries.map(\.seq), [1, 2, 3, 4], "it grows again after a rest")
    }

    func testAWrappedRingCompactsOldestFirstAndGoesOnOverwritingTheOldest() {
        var ring = TraceRing(capacity: 4)
        for seq in 1...6 { ring.append(entry(seq)) }
        XCTAssertEqual(ring.entries.map(\.seq), [3, 4, 5, 6])
        ring.compact()
        XCTAssertEqual(ring.entries.map(\.seq), [3, 4, 5, 6])
        ring.append(entry(7))
        ring.append(entry(8))
        XCTAssertEqual(ring.entries.map(\.seq), [5, 6, 7, 8])
        XCTAssertEqual(ring.count, 8)
    }

    /// A long answer is resolved (hash and excerpt made, tokens redacted) and shows the same
    /// line as before; a short one stays as it came.
    func testCompactedAnswersShowWhatTheyShowedBefore() throws {
        let long = Array((#"{"access_token":"secret-A","user":{"id":"u_1","name":""# + String(repeating: "n", count: 400) + #""}}"#).utf8)
        let short = Array(#"{"id":"s_1","stage":"reading"}"#.utf8)
        var ring = TraceRing(capacity: 128)
        ring.append(entry(1, answer: Redact.snippet(raw: long, parsed: try JSONValue.parse(long), limit: 240)))
        ring.append(entry(2, answer: Redact.snippet(raw: short, parsed: try JSONValue.parse(short), limit: 240)))
        ring.append(entry(3, answer: Redact.snippet(raw: short, parsed: try JSONValue.parse(short), limit: 240).withoutDigest()))
        XCTAssertEqual(ring.entries.map(\.answer.isKeptWhole), [true, true, true], "answers are kept as they came until shown")
        let lines = ring.entries.map { $0.json() }
        ring.compact()
        XCTAssertEqual(ring.entries.map(\.answer.isKeptWhole), [false, true, true])
        XCTAssertEqual(ring.entries.map { $0.json() }, lines)
        XCTAssertFalse(lines[0].contains("secret-A"), lines[0])
        XCTAssertTrue(lines[2].contains(#""digest":"""#), "an answer shown without a digest shows none after: \(lines[2])")
    }

    /// Through the checker: a user about to rest keeps its trace and lets go of the slack.
    func testAUserAboutToRestKeepsItsTrace() {
        let script = Script()
        let u = script.user(1)
        script.send(u, "POST /auth/anonymous", "/auth/anonymous", body: ["access_token": "t", "user": ["id": "u_1"]], status: 200)
        script.send(u, "GET /config", "/config", body: ["min_app_version": "1.0.0"], status: 200)
        script.send(u, "GET /home", "/home", body: ["today_quest": .null], status: 200)
        let lines = u.traceEntries.map { $0.json() }
        XCTAssertGreaterThan(u.traceReserved, 3)
        u.willRest()
        XCTAssertEqual(u.traceReserved, 3)
        XCTAssertEqual(u.traceEntries.map { $0.json() }, lines)
    }

    /// Two users given the same answer hold one copy of it after a rest; an answer that may hold
    /// a token stays its user's own; equal excerpts of long answers are held once too.
    func testEqualAnswersOfDifferentUsersAreHeldOnceAfterARest() throws {
        let table = SharedAnswers()
        func ring(_ text: String) throws -> TraceRing {
            let raw = Array(text.utf8)  // each ring its own array of the same bytes
            var r = TraceRing(capacity: 128)
            r.append(entry(1, answer: Redact.snippet(raw: raw, parsed: try JSONValue.parse(raw), limit: 240)))
            return r
        }
        let config = #"{"min_app_version":"1.0.0","poll":{"initial_ms":2000}}"#
        var a = try ring(config), b = try ring(config)
        XCTAssertNotEqual(a.entries[0].answer.storage, b.entries[0].answer.storage)
        a.compact(sharing: table)
        b.compact(sharing: table)
        XCTAssertNotNil(a.entries[0].answer.storage)
        XCTAssertEqual(a.entries[0].answer.storage, b.entries[0].answer.storage, "one copy for both")
        XCTAssertEqual(a.entries[0].json(), b.entries[0].json())

        let signedIn = #"{"access_token":"secret-A","user_id":"u_1"}"#
        var c = try ring(signedIn), d = try ring(signedIn)
        c.compact(sharing: table)
        d.compact(sharing: table)
        XCTAssertTrue(c.entries[0].answer.isKeptWhole)
        XCTAssertNotEqual(c.entries[0].answer.storage, d.entries[0].answer.storage, "an answer with a token is not shared")

        let catalog = "{\"topics\":[" + (1...60).map { "{\"id\":\"t_\($0)\"}" }.joined(separator: ",") + "]}"
        var e = try ring(catalog), f = try ring(catalog)
        e.compact(sharing: table)
        f.compact(sharing: table)
        XCTAssertFalse(e.entries[0].answer.isKeptWhole, "longer than its excerpt: resolved")
        XCTAssertNotNil(e.entries[0].answer.storage)
        XCTAssertEqual(e.entries[0].answer.storage, f.entries[0].answer.storage, "one excerpt for both")

        var g = try ring(#"{"min_app_version":"2.0.0","poll":{"initial_ms":2000}}"#)
        g.compact(sharing: table)
        XCTAssertNotEqual(g.entries[0].answer.storage, a.entries[0].answer.storage, "a different answer is its own")
        XCTAssertTrue(g.entries[0].json().contains("2.0.0"))
    }

    /// An entry is held in 88 bytes: whole milliseconds (a trace shows no more), clamped.
    func testEntriesAreNarrowAndShowWholeMilliseconds() {
        XCTAssertLessThanOrEqual(MemoryLayout<TraceEntry>.stride, 88)
        let e = TraceEntry(seq: 7, intendedMs: 1234.4, actualMs: 1234.6, endMs: 9e15, what: "GET /me", path: "/me", status: nil,
                           answer: .none)
        XCTAssertEqual([e.intendedMs, e.actualMs, e.endMs], [1234, 1235, Double(Int32.max)])
        XCTAssertNil(e.status)
        XCTAssertEqual(e.seq, 7)
        XCTAssertTrue(e.json().contains(#""actual_ms":1235"#), e.json())
        XCTAssertTrue(e.json().contains(#""status":null"#), e.json())
        XCTAssertEqual(entry(3).status, 200)
    }

    /// A second rest looks only at what came since the first: a long answer appended after it is
    /// made small too, in a wrapped ring as in one still filling.
    func testASecondRestCompactsWhatCameSince() throws {
        let long = Array(("{\"s\":\"" + String(repeating: "x", count: 400) + "\"}").utf8)
        let answer = { Redact.snippet(raw: long, parsed: try? JSONValue.parse(long), limit: 240) }
        for capacity in [2, 128] {
            var ring = TraceRing(capacity: capacity)
            ring.append(entry(1, answer: answer()))
            ring.compact()
            ring.append(entry(2, answer: answer()))
            ring.append(entry(3, answer: answer()))
            XCTAssertEqual(ring.entries.last?.answer.isKeptWhole, true)
            ring.compact()
            XCTAssertEqual(ring.entries.map(\.answer.isKeptWhole), Array(repeating: false, count: min(3, capacity)), "capacity \(capacity)")
            XCTAssertEqual(ring.reserved, min(3, capacity))
        }
    }
}

