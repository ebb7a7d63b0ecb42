import Foundation

/// A lock-protected value shared between a test and the closures, threads or tasks it starts.
public final class Box<T>: @unchecked Sendable {
    // @unchecked: `stored` is read and written only under `lock`.
    private let lock = NSLock()
    private var stored: T

    public init(_ value: T) { stored = value }

    public var value: T {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }

    /// Runs `body` on the value under the lock; what it returns is handed back.
    @discardableResult
    public func mutate<R>(_ body: (inout T) throws -> R) rethrows -> R { try lock.withLock { try body(&stored) } }
}

extension Box where T: RangeReplaceableCollection {
    /// Appends under the lock (values gathered from many threads at once).
    public func append(_ element: T.Element) { mutate { $0.append(element) } }
}

extension Box where T: AdditiveArithmetic {
    /// Adds under the lock (a counter bumped from many threads at once).
    public func add(_ amount: T) { mutate { $0 += amount } }
}
