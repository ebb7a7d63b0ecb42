import Synchronization

/// The transfers in flight of one task, all cancelled when the task is: one cancellation handler
/// for the whole of a user's walk, where every exchange installed its own.
///
/// `withTaskCancellationHandler` around each exchange cost ~1k instructions a request
/// (bench/instructions.sh): it adds and removes a status record on the task under the task's
/// status lock, and, being isolated to its caller's actor, switches executors on the way in and
/// out, each switch reading the task's executor preference under that lock again. Inside a scope,
/// an exchange of the scope's own task registers its transfer here instead (a `Mutex`). An
/// exchange of any other task (a child of a task group, an unstructured task made inside the
/// scope, which inherits it and may be cancelled on its own, as an app kill is) keeps its own
/// handler: the scope's handler fires only when its owner is cancelled.
public final class TransferScope: Sendable {
    /// The owning task's address: compared, never dereferenced. Set to `ended` when `run`
    /// returns: a task made inside the scope that outlives it keeps the scope (task-locals are
    /// inherited), and a task made later could be given the owner's old address.
    private let owner: Atomic<UInt>
    private static let ended: UInt = 1  // no task is at an odd address
    private let state = Mutex<(cancelled: Bool, holders: [TransferHolder])>((false, []))

    private init(owner: UInt) { self.owner = Atomic(owner) }

    /// Runs `body` with a scope owned by the current task (`RequestContext.transfers`), in the
    /// request context as `context` leaves it (bound once with the scope).
    public static func run<T: Sendable>(context: (inout RequestContext) -> Void = { _ in }, _ body: () async -> T) async -> T {
        let scope = TransferScope(owner: currentTask())
        defer { scope.owner.store(ended, ordering: .relaxed) }
        return await withTaskCancellationHandler {
            await RequestScope.with({ context(&$0); $0.transfers = scope }) { await body() }
        } onCancel: {
            scope.cancelAll()
        }
    }

    /// Whether the calling task owns this scope.
    var ownedByCurrentTask: Bool { Self.currentTask() == owner.load(ordering: .relaxed) }

    /// Registers an exchange's transfer before it is sent; cancelled at once when the owner
    /// already is (as a handler installed on a cancelled task runs at once).
    func register(_ h: TransferHolder) {
        let cancelled = state.withLock { s -> Bool in
            if !s.cancelled { s.holders.append(h) }
            return s.cancelled
        }
        if cancelled { h.cancel() }
    }

    func unregister(_ h: TransferHolder) {
        state.withLock { s in
            if let i = s.holders.lastIndex(where: { $0 === h }) { s.holders.remove(at: i) }
        }
    }

    private func cancelAll() {
        let holders = state.withLock { s -> [TransferHolder] in
            s.cancelled = true
            defer { s.holders = [] }
            return s.holders
        }
        for h in holders { h.cancel() }
    }

    private static func currentTask() -> UInt {
        withUnsafeCurrentTask { t in t.map { unsafeBitCast($0, to: UInt.self) } ?? 0 }
    }
}
