import Dispatch
import FleetCore
import FleetHTTP
import FleetSQLite
import Foundation
import FleetTestSupport
import XCTest

/// The reference stack killed with `kill -9` under load and restarted on the same database comes
/// back intact (issue 16 §4): the file passes SQLite's integrity check, every settlement belongs to
/// a completed session and every completed session has exactly one, each user's XP is the sum of
/// their settlements, no submitted attempt stays in flight, and idempotency keys answer as before.
final class StackCrashTests: XCTestCase {
    typealias E2E = EndToEndTests

    /// A `fleet stack` process on `db`, and the URL it printed.
    private func startStack(db: String) throws -> (Process, String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: E2E.fleetBinary)
        p.arguments = ["stack", "--port", "0", "--db", db, "--entitlement", "active", "--workers", "4",
                       "--median-ms", "150", "--sigma", "0.2", "--rate-limit", "0", "--duration", "300"]
        p.currentDirectoryURL = E2E.packageRoot
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        try p.run()
        let url = Box<String?>(nil)
        Thread {
            var text = ""
            while true {
                let d = out.fileHandleForReading.availableData
                if d.isEmpty { break }
                text += String(decoding: d, as: UTF8.self)
                if let line = text.split(separator: "\n").first(where: { $0.hasPrefix("READY ") }) {
                    url.value = String(line.dropFirst(6))
                }
            }
        }.start()
        _ = eventually(within: 60, every: 0.05) { url.value != nil || !p.isRunning }
        return (p, try XCTUnwrap(url.value, "the stack did not say READY"))
    }

    private func count(_ db: SQLiteDatabase, _ sql: String) throws -> Int64 {
        try db.queryOne(sql)?.int(0) ?? -1
    }

    func testKillNineUnderLoadAndRestartOnTheSameDatabaseIsIntact() throws {
        let dir = try E2E.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let dbPath = dir.appendingPathComponent("stack.sqlite").path
        var (stack, url) = try startStack(db: dbPath)
        defer { if stack.isRunning { kill(stack.processIdentifier, SIGKILL) } }

        let profile = try RunBinaryTests.writeProfile("""
        {"name": "crashload", "seed": 21, "duration_s": 60, "grace_s": 5, "time_scale": 0.02,
         "client": {"request_timeout_s": 3, "patience_s": 10},
         "corpus": {"dir": "\(E2E.packageRoot.path)/audio-corpus"},
         "think_times": {"default": {"type": "constant", "ms": 300}},
         "scenarios": [{"name": "quest", "model": {"type": "constant-arrival-rate", "rate": 4, "duration_s": 60},
                        "journeys": {"dailyQuest": 1}, "cohorts": {"subscriber": 1}}]}
        """, in: dir)
        let load = Process()
        load.executableURL = URL(fileURLWithPath: E2E.fleetBinary)
        load.arguments = ["run", "--profile", profile, "--target", url, "--out", dir.path,
                          "--history", dir.appendingPathComponent("h.sqlite").path]
        load.currentDirectoryURL = E2E.packageRoot
        load.standardOutput = FileHandle.nullDevice
        load.standardError = FileHandle.nullDevice
        try load.run()
        defer { if load.isRunning { kill(load.processIdentifier, SIGKILL) } }

        // Under load: wait for settlements to be committing, then kill the stack mid-stride.
        let watcher = try SQLiteDatabase(path: dbPath)
        let settlements = { (try? self.count(watcher, "SELECT count(*) FROM settlements")) ?? 0 }
        _ = eventually(within: 90, every: 0.2) { settlements() >= 5 }
        let before = settlements()
        XCTAssertGreaterThanOrEqual(before, 5, "the load settled sessions")
        // Mid-stride: the kill lands while the load is still settling sessions.
        XCTAssertTrue(eventually(within: 10, every: 0.02) { settlements() > before }, "the load kept settling")
        kill(stack.processIdentifier, SIGKILL)
        stack.waitUntilExit()
        XCTAssertEqual(stack.terminationReason, .uncaughtSignal)
        kill(load.processIdentifier, SIGKILL)
        load.waitUntilExit()

        (stack, url) = try startStack(db: dbPath)
        let db = try SQLiteDatabase(path: dbPath)
        XCTAssertEqual(try db.queryOne("PRAGMA integrity_check")?.text(0), "ok")
        XCTAssertEqual(try count(db, """
            SELECT count(*) FROM sessions WHERE stage = 'completed' AND id NOT IN (SELECT session_id FROM settlements)
            """), 0, "a completed session without its settlement")
        XCTAssertEqual(try count(db, """
            SELECT count(*) FROM settlements s LEFT JOIN sessions x ON x.id = s.session_id
            WHERE x.stage IS NULL OR x.stage != 'completed'
            """), 0, "a settlement of a session that is not completed")
        XCTAssertEqual(try count(db, "SELECT count(*) FROM (SELECT session_id FROM completions GROUP BY session_id HAVING count(*) > 1)"),
                       0, "a session counted twice")
        XCTAssertEqual(try count(db, """
            SELECT count(*) FROM users u WHERE u.xp != (SELECT coalesce(sum(json_extract(CAST(s.body AS TEXT), '$.xp_awarded')), 0)
                                                         FROM settlements s WHERE s.user_id = u.id)
            """), 0, "XP that is not the sum of the user's settlements")

        // Attempts submitted before the kill finish after the restart (bounded wait).
        let stuck = "SELECT count(*) FROM attempts WHERE status IN ('queued', 'transcribing', 'assessing')"
        _ = try eventually(within: 30, every: 0.2) { try count(db, stuck) == 0 }
        XCTAssertEqual(try count(db, stuck), 0, "attempts stuck in flight after the restart")

        // Keys answer as before the kill: a settled session's complete (key = session id) replays
        // its settlement, and a stored `POST /sessions` key returns the same session.
        let engine = try HTTPEngine()
        defer { engine.shutdown() }
        let settled = try db.query("""
            SELECT '/sessions/' || s.session_id || '/complete', s.session_id, 200, CAST(s.body AS TEXT), \(Self.userColumns)
            FROM settlements s JOIN users u ON u.id = s.user_id LIMIT 5
            """)
        let created = try db.query("""
            SELECT i.path, i.key, i.status, CAST(i.response AS TEXT), \(Self.userColumns)
            FROM idempotency i JOIN users u ON u.id = i.user_id WHERE i.method = 'POST' AND i.path = '/sessions' LIMIT 5
            """)
        XCTAssertFalse(settled.isEmpty)
        XCTAssertFalse(created.isEmpty, "session creates were keyed")
        for row in settled + created {
            let signIn: JSONValue = ["install_id": .string(row.text(4)), "timezone": .string(row.text(5)), "locale": .string(row.text(6)),
                                     "app_version": .string(row.text(7)), "platform": .string(row.text(8))]
            let auth = try send(engine, "POST", url + "/auth/anonymous", body: signIn)
            let token = try XCTUnwrap(auth.1["access_token"]?.string)
            var first = try JSONValue.parse(row.text(3)).object ?? [:]
            // The create's body is what the bench sent: the article and kind the session shows.
            let body: JSONValue? = row.text(0) == "/sessions"
                ? ["article_id": first["article_id"] ?? .null, "kind": first["kind"] ?? .null] : nil
            let replay = try send(engine, "POST", url + row.text(0), body: body, token: token, key: row.text(1))
            XCTAssertEqual(Int64(replay.0), row.int(2), row.text(0))
            var again = replay.1.object ?? [:]
            first["replayed"] = nil
            again["replayed"] = nil
            XCTAssertEqual(JSONValue.object(again).serialized(), JSONValue.object(first).serialized(), row.text(0))
        }
    }

    private static let userColumns = "u.install_id, u.timezone, u.locale, u.app_version, u.platform"

    /// One request and its JSON answer, waited for (bounded).
    private func send(_ engine: HTTPEngine, _ method: String, _ url: String, body: JSONValue? = nil, token: String? = nil,
                      key: String? = nil) throws -> (Int, JSONValue) {
        var headers = [HTTPHeader("Accept", "application/json"), HTTPHeader("Accept-Language", "en")]
        if body != nil { headers.append(HTTPHeader("Content-Type", "application/json")) }
        if let token { headers.append(HTTPHeader("Authorization", "Bearer \(token)")) }
        if let key { headers.append(HTTPHeader("Idempotency-Key", key)) }
        let request = HTTPRequest(method: method, url: url, headers: headers,
                                  body: body.map { HTTPBody(bytes: $0.serializedBytes()) }, timeout: 10)
        let box = Box<Result<HTTPResponse, HTTPError>?>(nil)
        let done = DispatchSemaphore(value: 0)
        engine.send(request, queue: .global()) { box.value = $0; done.signal() }
        XCTAssertEqual(done.wait(timeout: .now() + 15), .success)
        let r = try XCTUnwrap(box.value).get()
        return (r.status, (try? JSONValue.parse(r.body)) ?? .null)
    }
}
