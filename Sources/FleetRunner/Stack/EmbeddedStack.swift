import Foundation
import FleetCore

/// A stack the bench started for a run and stops after it.
public protocol RunningStack: Sendable {
    var baseURL: String { get }
    /// Asks the stack to stop without waiting for it, once nothing more will be sent to it: a
    /// child stack then shuts down (drains its database queue, removes its files) while the bench
    /// writes its report, instead of after it. `stop()` still follows and waits.
    func beginStop()
    func stop()
}

extension RunningStack {
    /// A stack in this process stops in `stop()`.
    public func beginStop() {}
}

/// Starts the embedded reference stack for runs without `--target`.
public protocol StackLauncher: Sendable {
    /// Starts a stack with the profile's `stack` settings and returns once it accepts requests.
    func start(settings: JSONValue?) throws -> any RunningStack
}

/// Runs the reference stack as a child process (`fleet stack --port 0 --config FILE`).
///
/// A child process rather than in-process, so that the bench's own CPU and memory figures
/// (generator health, memory per user) are the generator's alone, and so that the stack's worker
/// threads and SQLite never compete with the users' Dispatch pool inside one process. It is
/// started on an ephemeral loopback port and found by the `READY <url>` line it prints.
public struct ChildProcessStackLauncher: StackLauncher {
    public var executable: String
    public var readyTimeoutS: Double

    public init(executable: String, readyTimeoutS: Double = 20) {
        self.executable = executable
        self.readyTimeoutS = readyTimeoutS
    }

    public func start(settings: JSONValue?) throws -> any RunningStack {
        // The stack stops by itself if this process dies without stopping it (`kill -9`).
        var args = ["stack", "--port", "0", "--exit-with-parent"]
        var configPath: String?
        if let s = settings {
            let path = NSTemporaryDirectory() + "fleet-stack-\(getpid())-\(MonotonicClock.now()).json"
            try FileBytes.write(s.serializedBytes(), to: path)
            args += ["--config", path]
            configPath = path
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = args
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.standardError
        do { try process.run() } catch {
            throw RunnerError.failed("cannot start \(executable): \(error)")
        }
        let reader = LineReader(out.fileHandleForReading)
        let deadline = MonotonicClock.now() &+ UInt64(readyTimeoutS * 1e9)
        while MonotonicClock.now() < deadline {
            guard let line = reader.nextLine(timeout: Double(deadline &- MonotonicClock.now()) / 1e9) else { break }
            if line.hasPrefix("READY ") {
                let url = String(line.dropFirst(6)).trimmingWhitespace()
                if let p = configPath { unlink(p) }
                return ChildStack(baseURL: url, process: process, reader: reader)
            }
        }
        process.terminate()
        process.waitUntilExit()
        if let p = configPath { unlink(p) }
        throw RunnerError.failed("the embedded stack did not print READY within \(Int(readyTimeoutS)) s (exit status \(process.terminationStatus))")
    }
}

/// A running child stack; stop sends SIGTERM, then SIGKILL if it lingers.
// @unchecked: only `let`s; `Process` (not Sendable) is signalled by `beginStop()` and `stop()`
// and awaited only by `stop()`, both from the run's own task.
final class ChildStack: RunningStack, @unchecked Sendable {
    let baseURL: String
    private let process: Process
    private let reader: LineReader

    init(baseURL: String, process: Process, reader: LineReader) {
        self.baseURL = baseURL
        self.process = process
        self.reader = reader
        // Keep draining stdout so the child never blocks on a full pipe.
        reader.drainInBackground()
    }

    func beginStop() {
        if process.isRunning { process.terminate() }
    }

    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        let deadline = MonotonicClock.now() &+ 5_000_000_000
        while process.isRunning, MonotonicClock.now() < deadline { usleep(20_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }
}

/// Reads lines from a pipe with a timeout (poll(2) on the descriptor).
// @unchecked: `buffer` is confined to the one thread awaiting READY; the drain thread never touches it.
final class LineReader: @unchecked Sendable {
    private let handle: FileHandle
    private var buffer: [UInt8] = []

    init(_ handle: FileHandle) { self.handle = handle }

    func nextLine(timeout: Double) -> String? {
        let fd = handle.fileDescriptor
        let deadline = MonotonicClock.now() &+ UInt64(max(0, timeout) * 1e9)
        while true {
            if let nl = buffer.firstIndex(of: 10) {
                let line = String(decoding: buffer[..<nl], as: UTF8.self)
                buffer.removeSubrange(...nl)
                return line
            }
            let now = MonotonicClock.now()
            if now >= deadline { return nil }
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let r = poll(&p, 1, Int32(min(1000, (deadline - now) / 1_000_000 + 1)))
            if r < 0, errno != EINTR { return nil }
            if r > 0 {
                var chunk = [UInt8](repeating: 0, count: 4096)
                let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if n <= 0 { return nil }
                buffer.append(contentsOf: chunk[0..<n])
            }
        }
    }

    func drainInBackground() {
        let fd = handle.fileDescriptor
        Thread.detachNewThread {
            var chunk = [UInt8](repeating: 0, count: 4096)
            while chunk.withUnsafeMutableBytes({ read(fd, $0.baseAddress, $0.count) }) > 0 {}
        }
    }
}

extension String {
    func trimmingWhitespace() -> String {
        var s = Substring(self)
        while let f = s.first, f.isWhitespace { s = s.dropFirst() }
        while let l = s.last, l.isWhitespace { s = s.dropLast() }
        return String(s)
    }
}
