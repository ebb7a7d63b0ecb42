import FleetStack
import Foundation

/// The tests' one embedded reference stack: test-friendly settings (new users active, assessment
/// without spread), a database file of its own that `stop()` removes (a path the test chose is
/// kept, for tests that reopen it), and the address it serves on.
/// Harnesses that speak the API (raw HTTP in the stack tests, the fleet's client in the journey
/// tests) are built on it.
public final class EmbeddedStack: Sendable {
    public let stack: ReferenceStack
    public let baseURL: String
    public let port: Int
    /// The SQLite file the stack writes, for tests that look at its tables directly.
    public let dbPath: String
    private let ownsDatabase: Bool

    /// Starts a stack on a free loopback port; `configure` changes the settings on top of the test
    /// defaults, `make` builds the stack (the stack tests pass one with a clock they can move).
    public init(_ configure: (inout StackSettings) -> Void = { _ in },
                make: (StackSettings) throws -> ReferenceStack = { try ReferenceStack(settings: $0) }) throws {
        var s = StackSettings()
        s.newUserEntitlement = "active"
        s.assessmentSigma = 0
        let path = NSTemporaryDirectory() + "fleet-test-stack-\(UUID().uuidString).sqlite"
        s.dbPath = path
        configure(&s)
        let chosen = s.dbPath ?? path
        let owned = chosen == path
        let stack = try make(s)
        let url: String
        do {
            url = try stack.start()
        } catch {
            stack.stop()
            if owned { Self.remove(chosen) }
            throw error
        }
        self.stack = stack
        dbPath = chosen
        ownsDatabase = owned
        baseURL = url
        port = Int(url.split(separator: ":").last!)!
    }

    /// Stops the stack and removes its database (with the WAL and shared-memory files and the
    /// uploaded clips beside it: before, every test run left ~600 clip folders in the temp dir).
    public func stop() {
        stack.stop()
        if ownsDatabase { Self.remove(dbPath) }
    }

    private static func remove(_ path: String) {
        for suffix in ["", "-wal", "-shm", ".audio"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }
}
