import XCTest
import Foundation
@testable import FleetSQLite

final class SQLiteDatabaseTests: XCTestCase {
    private var dir: String = ""

    override func setUpWithError() throws {
        dir = NSTemporaryDirectory() + "fleet-sqlite-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: dir)
    }

    private func open(_ name: String = "t.db", busyMs: Int32 = 5_000) throws -> SQLiteDatabase {
        try SQLiteDatabase(path: dir + "/" + name, busyTimeoutMs: busyMs)
    }

    func testOpensInWALMode() throws {
        let db = try open()
        XCTAssertEqual(try db.journalMode(), "wal")
    }

    func testEveryStorageClassRoundTrips() throws {
        let db = try open()
        try db.execute("CREATE TABLE t (a, b, c, d, e)")
        let blob: [UInt8] = [0, 1, 2, 255]
        try db.run("INSERT INTO t VALUES (?, ?, ?, ?, ?)", .null, .int(-42), .double(2.5), .text("héllo 你好"), .blob(blob))
        let row = try XCTUnwrap(try db.queryOne("SELECT a, b, c, d, e FROM t"))
        XCTAssertEqual(row[0], .null)
        XCTAssertEqual(row[1], .int(-42))
        XCTAssertEqual(row[2], .double(2.5))
        XCTAssertEqual(row[3], .text("héllo 你好"))
        XCTAssertEqual(row[4], .blob(blob))
    }

    func testEmptyBlobStaysABlob() throws {
        let db = try open()
        try db.execute("CREATE TABLE t (b BLOB)")
        try db.run("INSERT INTO t VALUES (?)", .blob([]))
        XCTAssertEqual(try db.queryOne("SELECT typeof(b) FROM t")?.text(0), "blob")
    }

    func testStatementStepsThroughRowsAndResets() throws {
        let db = try open()
        try db.execute("CREATE TABLE t (n INTEGER)")
        for i in 1...5 { try db.run("INSERT INTO t VALUES (?)", .int(Int64(i))) }
        let s = try db.prepare("SELECT n FROM t WHERE n > ? ORDER BY n")
        try s.bind(.int(2))
        var seen: [Int64] = []
        while try s.step() { seen.append(s.int(0)) }
        XCTAssertEqual(seen, [3, 4, 5])
        s.reset()
        XCTAssertTrue(try s.step())
        XCTAssertEqual(s.int(0), 3, "reset keeps bindings and starts over")
    }

    func testPrepareReusesTheCachedStatement() throws {
        let db = try open()
        let a = try db.prepare("SELECT 1")
        let b = try db.prepare("SELECT 1")
        XCTAssertTrue(a === b)
    }

    func testConstraintViolationIsTyped() throws {
        let db = try open()
        try db.execute("CREATE TABLE t (id TEXT PRIMARY KEY)")
        try db.run("INSERT INTO t VALUES ('x')")
        XCTAssertThrowsError(try db.run("INSERT INTO t VALUES ('x')")) { error in
            XCTAssertEqual((error as? SQLiteError)?.kind, .constraint)
        }
    }

    func testBadSQLNamesTheStatement() throws {
        let db = try open()
        XCTAssertThrowsError(try db.prepare("SELEC nonsense")) { error in
            let e = error as? SQLiteError
            XCTAssertEqual(e?.kind, .invalidSQL)
            XCTAssertTrue(e?.message.contains("SELEC nonsense") ?? false, "\(String(describing: e))")
        }
    }

    func testWrongParameterCountIsMisuse() throws {
        let db = try open()
        XCTAssertThrowsError(try db.run("SELECT ?, ?", .int(1))) { error in
            XCTAssertEqual((error as? SQLiteError)?.kind, .misuse)
        }
    }

    func testTransactionRollsBackWhenTheBodyThrows() throws {
        struct Boom: Error {}
        let db = try open()
        try db.execute("CREATE TABLE t (n INTEGER)")
        XCTAssertThrowsError(try db.transaction {
            try db.run("INSERT INTO t VALUES (1)")
            throw Boom()
        })
        XCTAssertEqual(try db.queryOne("SELECT count(*) FROM t")?.int(0), 0)
        try db.transaction { try db.run("INSERT INTO t VALUES (2)") }
        XCTAssertEqual(try db.queryOne("SELECT count(*) FROM t")?.int(0), 1)
    }

    func testNestedTransactionJoinsTheOuterOne() throws {
        struct Boom: Error {}
        let db = try open()
        try db.execute("CREATE TABLE t (n INTEGER)")
        XCTAssertThrowsError(try db.transaction {
            try db.transaction { try db.run("INSERT INTO t VALUES (1)") }
            throw Boom()
        })
        XCTAssertEqual(try db.queryOne("SELECT count(*) FROM t")?.int(0), 0)
    }

    func testImmediateTransactionMakesASecondWriterWaitThenFailBusy() throws {
        let a = try open()
        try a.execute("CREATE TABLE t (n INTEGER)")
        let b = try open(busyMs: 100)
        try a.transaction {
            let start = Date()
            XCTAssertThrowsError(try b.transaction { try b.run("INSERT INTO t VALUES (1)") }) { error in
                XCTAssertEqual((error as? SQLiteError)?.kind, .busy)
            }
            XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(start), 0.09, "the busy timeout made it wait")
        }
        try b.transaction { try b.run("INSERT INTO t VALUES (1)") }
        XCTAssertEqual(try a.queryOne("SELECT count(*) FROM t")?.int(0), 1)
    }

    func testUnopenablePathIsCantOpen() {
        XCTAssertThrowsError(try SQLiteDatabase(path: "/nonexistent-dir-\(UUID().uuidString)/x.db")) { error in
            XCTAssertEqual((error as? SQLiteError)?.kind, .cantOpen)
        }
    }
}
