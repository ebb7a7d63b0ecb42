import Synchronization

/// The lock the test doubles of this target keep beside their fields (`FleetCore.Lock` is gone
/// from the sources, which keep their state inside a `Mutex`). Over `Mutex`, so its storage has
/// a stable address; meant to give way to the shared test-support module's helper.
final class Lock: Sendable {
    private let mutex = Mutex(())

    func withLock<R>(_ body: () -> R) -> R {
        var result: R?
        mutex.withLock { _ in result = body() }
        return result!
    }
}
