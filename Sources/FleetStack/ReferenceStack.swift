import Foundation
import FleetCore
import FleetHTTPServer
import FleetSQLite
import Synchronization

/// The embedded reference stack: the whole API of `API.md` over a real HTTP/1.1 server on
/// loopback, on SQLite in WAL mode, with an assessment worker pool.
///
/// `start()` returns the base URL once the server accepts requests; `stop()` stops the server and
/// the workers and, when the database was a temporary file, removes it.
public final class ReferenceStack: Sendable {
    // The mutable parts (server, started flag) are inside `state`.
    private let state = Mutex(State())
    public let settings: StackSettings
    private let dbPath: String
    private let ownsDatabase: Bool

    private struct State {
        var server: HTTPServer?
        var app: StackApp?
        var baseURL: String?
        var stopped = false
    }

    /// Validates the settings, opens (or creates) the database and loads the article catalog.
    public convenience init(settings: StackSettings) throws {
        try self.init(settings: settings, clock: StackClock())
    }

    /// The same with a clock tests can move forward.
    init(settings: StackSettings, clock: StackClock) throws {
        try settings.validate()
        self.settings = settings
        let path: String
        if let p = settings.dbPath { path = p } else {
            ReferenceStack.sweepStaleTemporaryDatabases()
            path = NSTemporaryDirectory() + "fleet-stack-\(getpid())-\(IDs.make("db")).sqlite"
        }
        dbPath = path
        ownsDatabase = settings.dbPath == nil
        let db = try SQLiteDatabase(path: path)
        let catalog = try Catalog.loadBundled().taggingLanguages(as: settings.practiceLanguages)
        let app = try StackApp(settings: settings, database: db, catalog: catalog, clock: clock)
        state.withLock { $0.app = app }
    }

    /// Starts serving; returns `http://HOST:PORT`. Calling it again returns the same URL.
    @discardableResult
    public func start() throws -> String {
        try state.withLock { state throws -> String in
            if let url = state.baseURL { return url }
            guard !state.stopped, let app = state.app else { throw StackSettingsError("the stack was stopped; create a new one") }
            let server = HTTPServer(host: settings.host, port: settings.port, limits: ServerLimits(), ioThreads: 2, handler: app)
            let port = try server.start()
            let host = settings.host.contains(":") ? "[\(settings.host)]" : settings.host
            let url = "http://\(host):\(port)"
            app.baseURL = url
            try app.dbQueue.sync { try app.recoverPipeline() }
            state.server = server
            state.baseURL = url
            return url
        }
    }

    /// The base URL while running, else nil.
    public var baseURL: String? { state.withLock { $0.baseURL } }

    /// How often an assessment found its verdict in the cache (`verdictCache`), and how often it
    /// decoded; (0, 0) when the cache is off or the stack has stopped.
    public var verdictCacheCounts: (hits: Int, misses: Int) {
        state.withLock { $0.app?.pipeline.verdictCacheCounts } ?? (0, 0)
    }

    /// The app behind the server (tests reach its flags through it).
    var app: StackApp? { state.withLock { $0.app } }

    /// Stops the server and the workers; removes a temporary database. Idempotent.
    public func stop() {
        let (server, app): (HTTPServer?, StackApp?) = state.withLock { state in
            guard !state.stopped else { return (nil, nil) }
            state.stopped = true
            defer { state.server = nil; state.app = nil; state.baseURL = nil }
            return (state.server, state.app)
        }
        server?.stop()
        app?.pipeline.stop()
        app?.stopping.store(true, ordering: .relaxed)  // what is still queued is answered 503, not run
        app?.dbQueue.sync {}  // let the request running on the queue finish before the files go
        if ownsDatabase {
            app?.audio.removeAll()
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: dbPath + suffix) }
        }
    }

    deinit { stop() }

    /// Removes temporary databases left behind by stacks whose process is gone (killed before
    /// `stop()` could run). The files carry their process id: `fleet-stack-PID-db_….sqlite[-wal|-shm]`.
    static func sweepStaleTemporaryDatabases() {
        let dir = NSTemporaryDirectory()
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: dir) else { return }
        for name in names where name.hasPrefix("fleet-stack-") && name.contains("-db_") && name.contains(".sqlite") {
            let pidText = name.dropFirst("fleet-stack-".count).prefix { $0.isNumber }
            guard let pid = Int32(pidText), pid != getpid() else { continue }
            // kill(pid, 0) probes without signalling: ESRCH means no such process.
            if kill(pid, 0) != 0 && errno == ESRCH {
                try? FileManager.default.removeItem(atPath: (dir as NSString).appendingPathComponent(name))
            }
        }
    }
}
