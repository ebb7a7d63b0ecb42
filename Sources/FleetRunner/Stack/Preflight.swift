import Dispatch
import Foundation
import FleetCore
import FleetHTTP

/// Checks that the target answers HTTP at all before any user starts, so that a wrong URL is a
/// clear error within seconds instead of a run full of connection errors.
enum Preflight {
    static func check(base: String, engine: HTTPEngine, timeoutS: Double) async throws {
        // A refused connection or an unknown host is a wrong URL at once; any other failure (a
        // reset, a stall, garbage) means something answered, and a hostile or flaky target gets
        // three tries before the run gives up on it.
        for attempt in 1...3 {
            guard case let .failure(e) = await get(base + "/config", engine: engine, timeoutS: timeoutS) else { return }
            if attempt == 3 || e.kind == .connect || e.kind == .dns {
                throw RunnerError.failed("target \(base) is unreachable (\(e.kind.rawValue): \(e.message))")
            }
        }
    }

    /// One JSON GET through the engine, outside any user (no recorder, no retries).
    static func get(_ url: String, engine: HTTPEngine, timeoutS: Double) async -> Result<HTTPResponse, HTTPError> {
        let request = HTTPRequest(method: "GET", url: url, headers: [HTTPHeader("Accept", "application/json")], timeout: timeoutS)
        return await withCheckedContinuation { c in
            engine.send(request, queue: DispatchQueue.global()) { c.resume(returning: $0) }
        }
    }
}

/// The bench's own git revision, for the history table (unknown outside a checkout).
enum GitRevision {
    static func current() -> String {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["git", "rev-parse", "--short", "HEAD"]
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        guard (try? p.run()) != nil else { return "unknown" }
        p.waitUntilExit()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        let s = String(decoding: data, as: UTF8.self).trimmingWhitespace()
        return p.terminationStatus == 0 && !s.isEmpty ? s : "unknown"
    }
}

/// The embedded stack's row counts (`GET /_stack/stats`, not part of the contract): the database
/// size a capacity search reached. nil when the stack does not answer it.
enum StackStats {
    static func fetch(base: String, engine: HTTPEngine) async -> (users: Int64, sessions: Int64)? {
        guard case let .success(r) = await Preflight.get(base + "/_stack/stats", engine: engine, timeoutS: 10), r.status == 200, let json = try? JSONValue.parse(r.body),
              let users = json["users"]?.int, let sessions = json["sessions"]?.int else { return nil }
        return (Int64(users), Int64(sessions))
    }
}
