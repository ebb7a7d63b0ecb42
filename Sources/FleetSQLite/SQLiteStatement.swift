import CSQLite

/// SQLite copies bound text and blobs when told `SQLITE_TRANSIENT`; the C macro is a cast of -1
/// that Swift cannot import.
private let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

/// A compiled statement. Bind values, `step()` through the rows, read columns, `reset()` to reuse.
///
/// A statement belongs to its database and is used by one thread at a time, like the database.
public final class SQLiteStatement {
    private var handle: OpaquePointer?
    private unowned let database: SQLiteDatabase
    public let sql: String

    init(database: SQLiteDatabase, sql: String) throws {
        self.database = database
        self.sql = sql
        var stmt: OpaquePointer?
        let rc = sqlite3_prepare_v2(database.handle, sql, -1, &stmt, nil)
        guard rc == SQLITE_OK, let stmt else {
            sqlite3_finalize(stmt)
            throw database.error(rc, context: "prepare '\(sql.prefix(80))'")
        }
        handle = stmt
    }

    deinit { sqlite3_finalize(handle) }

    /// Binds `values` to the parameters 1…n (clearing earlier bindings and resetting first).
    @discardableResult
    public func bind(_ values: SQLiteValue...) throws -> SQLiteStatement {
        try bind(values)
    }

    /// Binds an array of values to parameters 1…n.
    @discardableResult
    public func bind(_ values: [SQLiteValue]) throws -> SQLiteStatement {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        let expected = Int(sqlite3_bind_parameter_count(handle))
        guard values.count == expected else {
            throw SQLiteError(kind: .misuse,
                              message: "statement '\(sql.prefix(80))' takes \(expected) parameters, got \(values.count)")
        }
        for (i, v) in values.enumerated() {
            let idx = Int32(i + 1)
            let rc: Int32
            switch v {
            case .null: rc = sqlite3_bind_null(handle, idx)
            case .int(let n): rc = sqlite3_bind_int64(handle, idx, n)
            case .double(let d): rc = sqlite3_bind_double(handle, idx, d)
            case .text(let s): rc = sqlite3_bind_text(handle, idx, s, -1, transient)
            case .blob(let b):
                rc = b.withUnsafeBytes { raw in
                    // A zero-length blob must still be a blob, not NULL: give SQLite a valid pointer.
                    sqlite3_bind_blob(handle, idx, raw.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(b.count), transient)
                }
            }
            guard rc == SQLITE_OK else { throw database.error(rc, context: "bind parameter \(idx)") }
        }
        return self
    }

    /// Advances to the next row: true when a row is available, false when the statement is done.
    @discardableResult
    public func step() throws -> Bool {
        let rc = sqlite3_step(handle)
        switch rc {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            sqlite3_reset(handle)
            throw database.error(rc, context: "step '\(sql.prefix(80))'")
        }
    }

    /// Makes the statement ready to run again (bindings are kept).
    public func reset() { sqlite3_reset(handle) }

    public var columnCount: Int { Int(sqlite3_column_count(handle)) }

    public func isNull(_ column: Int) -> Bool { sqlite3_column_type(handle, Int32(column)) == SQLITE_NULL }
    public func int(_ column: Int) -> Int64 { sqlite3_column_int64(handle, Int32(column)) }
    public func double(_ column: Int) -> Double { sqlite3_column_double(handle, Int32(column)) }

    public func text(_ column: Int) -> String {
        guard let p = sqlite3_column_text(handle, Int32(column)) else { return "" }
        let n = Int(sqlite3_column_bytes(handle, Int32(column)))
        return String(decoding: UnsafeBufferPointer(start: p, count: n), as: UTF8.self)
    }

    public func blob(_ column: Int) -> [UInt8] {
        let n = Int(sqlite3_column_bytes(handle, Int32(column)))
        guard n > 0, let p = sqlite3_column_blob(handle, Int32(column)) else { return [] }
        return Array(UnsafeRawBufferPointer(start: p, count: n))
    }

    /// The column's value in its own storage class.
    public func value(_ column: Int) -> SQLiteValue {
        switch sqlite3_column_type(handle, Int32(column)) {
        case SQLITE_INTEGER: return .int(int(column))
        case SQLITE_FLOAT: return .double(double(column))
        case SQLITE_TEXT: return .text(text(column))
        case SQLITE_BLOB: return .blob(blob(column))
        default: return .null
        }
    }

    /// The current row as values.
    public func row() -> SQLiteRow {
        SQLiteRow(values: (0..<columnCount).map { value($0) })
    }
}
