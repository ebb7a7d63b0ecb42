import CSQLite

/// One SQLite connection in WAL mode with a busy timeout and a cache of prepared statements.
///
/// Not thread-safe by itself (opened with `SQLITE_OPEN_NOMUTEX`): the owner serialises access,
/// which is what a single-writer database wants anyway. Errors are `SQLiteError`s.
public final class SQLiteDatabase {
    let handle: OpaquePointer
    public let path: String
    private var cache: [String: SQLiteStatement] = [:]
    private var transactionDepth = 0

    /// Opens (creating if needed) the database at `path`, sets WAL, `synchronous=NORMAL`, foreign
    /// keys on, and a busy timeout so that a second connection waits instead of failing at once.
    public init(path: String, busyTimeoutMs: Int32 = 5_000) throws {
        self.path = path
        var db: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let rc = sqlite3_open_v2(path, &db, flags, nil)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close_v2(db)
            throw SQLiteError(kind: .cantOpen, message: "cannot open '\(path)': \(message)")
        }
        handle = db
        sqlite3_busy_timeout(db, busyTimeoutMs)
        sqlite3_extended_result_codes(db, 0)
        do {
            if path != ":memory:" { try execute("PRAGMA journal_mode=WAL") }
            try execute("PRAGMA synchronous=NORMAL")
            try execute("PRAGMA foreign_keys=ON")
        } catch {
            cache.removeAll()
            sqlite3_close_v2(db)
            throw error
        }
    }

    deinit {
        cache.removeAll()  // statements must be finalized before the connection closes
        sqlite3_close_v2(handle)
    }

    /// Runs one or more statements that return no rows we need (schema, pragmas).
    public func execute(_ sql: String) throws {
        var errmsg: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(handle, sql, nil, nil, &errmsg)
        if rc != SQLITE_OK {
            let message = errmsg.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(handle))
            sqlite3_free(errmsg)
            throw SQLiteError(kind: Self.kind(rc), message: message)
        }
    }

    /// A prepared statement for `sql`, compiled once and reused from the cache afterwards.
    public func prepare(_ sql: String) throws -> SQLiteStatement {
        if let s = cache[sql] {
            s.reset()
            return s
        }
        let s = try SQLiteStatement(database: self, sql: sql)
        cache[sql] = s
        return s
    }

    /// Runs a statement with `values` and returns every row.
    public func query(_ sql: String, _ values: SQLiteValue...) throws -> [SQLiteRow] {
        let s = try prepare(sql)
        try s.bind(values)
        defer { s.reset() }
        var rows: [SQLiteRow] = []
        while try s.step() { rows.append(s.row()) }
        return rows
    }

    /// Runs a statement with `values` and returns the first row, if any.
    public func queryOne(_ sql: String, _ values: SQLiteValue...) throws -> SQLiteRow? {
        let s = try prepare(sql)
        try s.bind(values)
        defer { s.reset() }
        return try s.step() ? s.row() : nil
    }

    /// Runs a statement with `values` that returns no rows; gives the number of rows changed.
    @discardableResult
    public func run(_ sql: String, _ values: SQLiteValue...) throws -> Int {
        let s = try prepare(sql)
        try s.bind(values)
        defer { s.reset() }
        while try s.step() {}
        return Int(sqlite3_changes(handle))
    }

    /// The rowid of the last successful INSERT on this connection.
    public var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// Runs `body` inside `BEGIN IMMEDIATE … COMMIT` (the write lock is taken up front, so two
    /// writers never deadlock upgrading a read lock); rolls back if `body` throws. Nested calls
    /// join the outer transaction.
    @discardableResult
    public func transaction<R>(_ body: () throws -> R) throws -> R {
        if transactionDepth > 0 {
            transactionDepth += 1
            defer { transactionDepth -= 1 }
            return try body()
        }
        try execute("BEGIN IMMEDIATE")
        transactionDepth = 1
        do {
            let result = try body()
            transactionDepth = 0
            try execute("COMMIT")
            return result
        } catch {
            transactionDepth = 0
            try? execute("ROLLBACK")
            throw error
        }
    }

    /// The journal mode SQLite reports (`wal` once opened on a file).
    public func journalMode() throws -> String {
        try queryOne("PRAGMA journal_mode")?.text(0) ?? ""
    }

    func error(_ rc: Int32, context: String) -> SQLiteError {
        SQLiteError(kind: Self.kind(rc), message: "\(context): \(String(cString: sqlite3_errmsg(handle)))")
    }

    static func kind(_ rc: Int32) -> SQLiteError.Kind {
        switch rc & 0xff {
        case SQLITE_CANTOPEN: return .cantOpen
        case SQLITE_BUSY, SQLITE_LOCKED: return .busy
        case SQLITE_CONSTRAINT: return .constraint
        case SQLITE_ERROR: return .invalidSQL
        case SQLITE_MISUSE, SQLITE_RANGE: return .misuse
        case SQLITE_CORRUPT, SQLITE_NOTADB: return .corrupt
        case SQLITE_FULL: return .full
        case SQLITE_READONLY: return .readOnly
        case SQLITE_IOERR: return .io
        default: return .other
        }
    }
}
