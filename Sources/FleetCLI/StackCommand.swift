import Dispatch
import Foundation
import FleetCore
import FleetHTTP
import FleetStack
#if canImport(Glibc)
import Glibc
#endif

/// `fleet stack [--config FILE] [--port P] [--db PATH] [--workers N] [--entitlement none|trial|active]
/// [--median-ms X] [--sigma X] [--max-queue N] [--token-lifetime S] [--upload-lifetime S] [--sandbox-key K]
/// [--min-app-version V] [--rate-limit PER_S] [--bugs a,b] [--seed N] [--duration S] [--exit-with-parent]`
///
/// Starts the reference stack, prints exactly `READY http://127.0.0.1:P` once it accepts requests,
/// and serves until SIGINT or SIGTERM (or `--duration S`), then stops cleanly. Flags override the
/// config file, which overrides the defaults. `--exit-with-parent` (what `fleet run` passes to its
/// embedded stack) stops it when the process that started it is gone — also after a `kill -9`,
/// which gives the parent no chance to stop it.
public enum StackCommand: FleetCommand {
    public static let name = "stack"
    public static let summary = "run the embedded reference stack until interrupted"

    public static func run(_ arguments: [String], io: CommandIO) throws -> Int32 {
        var rest = arguments
        let exitWithParent = rest.contains("--exit-with-parent")
        rest.removeAll { $0 == "--exit-with-parent" }
        let (settings, duration) = try parse(rest)
        // Each client connection is a socket here too: a bench's automatic cap follows its own
        // open-file limit, so the stack takes all the hard limit allows.
        ConnectionBudget.raiseOpenFileLimit()
        let stack: ReferenceStack
        let url: String
        do {
            stack = try ReferenceStack(settings: settings)
            url = try stack.start()
        } catch let e as StackSettingsError {
            throw UsageError(e.description)
        } catch {
            io.err("fleet stack: cannot start: \(error)")
            return ExitCode.failure
        }
        let done = DispatchSemaphore(value: 0)
        if exitWithParent {
            // Orphaned children are re-parented: a changed parent pid means ours is gone.
            let parent = getppid()
            Thread {
                while getppid() == parent { usleep(250_000) }
                done.signal()
            }.start()
        }
        let code = SignalBridge.withInterrupts({ done.signal() }) { () -> Int32 in
            // READY only once SIGINT/SIGTERM are heard: a parent that stops the stack right after
            // READY (a test, a quick Ctrl-C) had its SIGTERM ignored in the gap and waited 5 s for SIGKILL.
            io.out("READY \(url)")
            if let duration {
                _ = done.wait(timeout: .now() + duration)
            } else {
                done.wait()
            }
            return ExitCode.success
        }
        stack.stop()
        return code
    }

    /// The settings from `--config` and the flags; any problem is a `UsageError` naming it.
    static func parse(_ arguments: [String]) throws -> (StackSettings, Double?) {
        var a = ArgumentReader(arguments)
        var s = StackSettings()
        if let path = try a.option("config") {
            do { s = try StackSettings.load(path: path) } catch { throw UsageError("--config \(error)") }
        }
        if let v = try a.intOption("port") { s.port = v }
        if let v = try a.option("db") { s.dbPath = v }
        if let v = try a.option("host") { s.host = v }
        if let v = try a.intOption("workers") { s.workers = v }
        if let v = try a.option("entitlement") { s.newUserEntitlement = v }
        if let v = try a.doubleOption("median-ms") { s.assessmentMedianMs = v }
        if let v = try a.doubleOption("sigma") { s.assessmentSigma = v }
        if let v = try a.intOption("max-queue") { s.maxQueue = v }
        if let v = try a.intOption("token-lifetime") { s.accessTokenLifetimeS = v }
        if let v = try a.intOption("upload-lifetime") { s.uploadURLLifetimeS = v }
        if let v = try a.option("sandbox-key") { s.sandboxKey = v }
        if let v = try a.option("min-app-version") { s.minAppVersion = v }
        if let v = try a.doubleOption("rate-limit") { s.rateLimitPerSecond = v }
        if let v = try a.option("bugs") {
            do { s.bugs = try StackBug.parseList(v) } catch { throw UsageError("--bugs: \(error)") }
        }
        if let v = try a.intOption("seed") {
            guard v >= 0 else { throw UsageError("--seed: expected a non-negative integer") }
            s.seed = UInt64(v)
        }
        let duration = try a.doubleOption("duration")
        if let d = duration, d <= 0 { throw UsageError("--duration: expected seconds > 0") }
        let rest = try a.finish()
        if let extra = rest.first { throw UsageError("unexpected argument '\(extra)'") }
        do { try s.validate() } catch { throw UsageError("\(error)") }
        return (s, duration)
    }
}
