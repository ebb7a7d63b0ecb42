import Dispatch
import Foundation

/// Waits (bounded) until `condition` holds and returns whether it did: the tests' one way to wait
/// for something to happen, instead of sleeping and hoping. The condition is checked once more at
/// the deadline, so a slow machine only costs time, never a false failure within `seconds`.
public func eventually(within seconds: Double = 3, every interval: Double = 0.01, _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(seconds * 1e9)
    while DispatchTime.now().uptimeNanoseconds < deadline {
        if try condition() { return true }
        usleep(useconds_t(interval * 1e6))
    }
    return try condition()
}

/// The same for async tests: polls without blocking a thread of the cooperative pool (a blocked
/// thread on a two-core machine can starve the very tasks being waited for).
public func eventuallyAsync(within seconds: Double = 3, every interval: Double = 0.01,
                            _ condition: () async throws -> Bool) async rethrows -> Bool {
    let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(seconds * 1e9)
    while DispatchTime.now().uptimeNanoseconds < deadline {
        if try await condition() { return true }
        try? await Task.sleep(nanoseconds: UInt64(interval * 1e9))
    }
    return try await condition()
}
