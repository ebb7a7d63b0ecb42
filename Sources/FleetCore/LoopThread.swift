#if canImport(Glibc)
import Glibc
#endif

/// A thread that runs an event loop with timers of its own: the HTTP engine's I/O threads, which
/// also run the virtual users' tasks (`HTTPEngine.userExecutors`). `Pause` asks the loop of the
/// thread it is called on for its timer, so that a user's think time ends on the thread that
/// runs the user, with no Dispatch timer thread to wake and no hop back.
public protocol LoopTimers: AnyObject, Sendable {
    /// Calls `fire` on the loop's thread at or after `deadline` (MonotonicClock nanoseconds).
    /// Only called on the loop's own thread.
    func schedule(at deadline: UInt64, _ fire: @escaping @Sendable () -> Void)
}

/// Which `LoopTimers` the current thread runs, if any: a thread-local (pthread key), set once by
/// the loop's thread when it starts. One `pthread_getspecific` per lookup, no lock.
public enum LoopThread {
    private final class Box {
        let loop: any LoopTimers
        init(_ loop: any LoopTimers) { self.loop = loop }
    }

    private static let key: pthread_key_t = {
        var k = pthread_key_t()
        // The box is released when the thread exits (the loop outlives nothing it is held by).
        pthread_key_create(&k) { p in if let p { Unmanaged<Box>.fromOpaque(p).release() } }
        return k
    }()

    /// Marks the calling thread as running `loop` (nil clears it).
    public static func set(_ loop: (any LoopTimers)?) {
        if let old = pthread_getspecific(key) { Unmanaged<Box>.fromOpaque(old).release() }
        let box = loop.map { Unmanaged.passRetained(Box($0)).toOpaque() }
        pthread_setspecific(key, box)
    }

    /// The loop the calling thread runs, or nil on any other thread.
    public static var current: (any LoopTimers)? {
        guard let p = pthread_getspecific(key) else { return nil }
        return Unmanaged<Box>.fromOpaque(p).takeUnretainedValue().loop
    }
}
