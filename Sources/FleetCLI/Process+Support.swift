import Dispatch
import FleetCore
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Path of the running `fleet` binary, to start the embedded stack as a child of the same build.
enum SelfExecutable {
    static func path() -> String {
        var buf = [CChar](repeating: 0, count: 4096)
        let n = readlink("/proc/self/exe", &buf, buf.count - 1)
        return n > 0 ? String(cString: Array(buf[0..<n]) + [0]) : CommandLine.arguments[0]
    }
}

/// Runs async work from a synchronous command and waits for it. The wait blocks the main thread
/// only; users and the engine run on Dispatch's pool and the engine's own I/O threads.
enum BlockingTask {
    static func run(_ body: @escaping @Sendable () async -> Int32) -> Int32 {
        let done = DispatchSemaphore(value: 0)
        let box = ResultBox()
        Task {
            box.set(await body())
            done.signal()
        }
        done.wait()
        return box.get()
    }

    private final class ResultBox: Sendable {
        private let value = Atomic<Int32>(0)
        func set(_ v: Int32) { value.store(v, ordering: .releasing) }
        func get() -> Int32 { value.load(ordering: .acquiring) }
    }
}

/// SIGINT and SIGTERM become calls to `handler` while `body` runs (Dispatch signal sources, so
/// no work happens inside a signal handler); the default dispositions come back afterwards.
///
/// `body` starts only once both sources are registered: `resume()` registers a source
/// asynchronously, and a signal in that gap met `SIG_IGN` and was lost — `fleet stack` had printed
/// READY, and a parent's SIGTERM right after it left the stack serving (2 runs in 15 of
/// ChildStackTests until its parent's SIGKILL).
enum SignalBridge {
    static func withInterrupts(_ handler: @escaping @Sendable () -> Void, _ body: () -> Int32) -> Int32 {
        let queue = DispatchQueue(label: "fleet.signals")
        var sources: [DispatchSourceSignal] = []
        let registered = DispatchSemaphore(value: 0)
        for sig in [SIGINT, SIGTERM] {
            signal(sig, SIG_IGN)
            let s = DispatchSource.makeSignalSource(signal: sig, queue: queue)
            s.setEventHandler(handler: handler)
            s.setRegistrationHandler { registered.signal() }
            s.resume()
            sources.append(s)
        }
        // Bounded: a Dispatch that never called back would otherwise hang the command at start.
        for _ in sources { _ = registered.wait(timeout: .now() + 5) }
        defer {
            for s in sources { s.cancel() }
            signal(SIGINT, SIG_DFL)
            signal(SIGTERM, SIG_DFL)
        }
        return body()
    }
}
