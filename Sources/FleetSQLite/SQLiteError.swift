/// A failure reported by SQLite, as a Swift error: a kind callers can switch on and the message
/// SQLite gave. Raw result codes never leave this module; `kind` is their meaning.
public struct SQLiteError: Error, CustomStringConvertible, Sendable, Equatable {
    /// What went wrong, grouped the way a caller reacts to it.
    public enum Kind: String, Sendable {
        /// The database file could not be opened or created.
        case cantOpen
        /// Another connection held a lock for longer than the busy timeout.
        case busy
        /// A UNIQUE, NOT NULL, CHECK or FOREIGN KEY constraint rejected a write.
        case constraint
        /// The SQL text did not compile (syntax, unknown table or column).
        case invalidSQL
        /// A statement was used wrongly (bind index out of range, wrong order of calls).
        case misuse
        /// The file is damaged or not a database.
        case corrupt
        /// The disk or the database is full.
        case full
        /// The database is read-only.
        case readOnly
        /// An I/O error from the operating system.
        case io
        /// Anything else.
        case other
    }

    public let kind: Kind
    public let message: String

    public init(kind: Kind, message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { "sqlite \(kind.rawValue): \(message)" }
}
