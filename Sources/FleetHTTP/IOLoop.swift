import CCurl
import CCurlShim
import Dispatch
import FleetCore
import Foundation
import Synchronization

/// One I/O thread owning a few libcurl multi handles (`MultiShard`) and every transfer on them.
///
/// It drives curl's socket interface: curl says which sockets to watch (socket callback → epoll)
/// and when it needs a timeout call (timer callback); the thread waits in `epoll_wait` and hands
/// each ready socket to `curl_multi_socket_action` of the shard that owns it. The cost of a
/// wake-up is therefore the number of ready sockets, not the number of open ones, which is what
/// keeps 2,000 connections nearly as cheap per request as 64 (`curl_multi_poll` re-polls every
/// socket on every call).
///
/// Other threads only append to the locked submission, cancel and job lists, and write the
/// eventfd when the thread is asleep. The thread also runs the tasks of the users that prefer it
/// (`IOLoop+Executor`), their sends and their timers, without a lock. `@unchecked Sendable`: `pending` is a Mutex and `sleeping` atomic;
/// everything else is touched only by the I/O thread (callbacks included, as curl calls them
/// from inside `curl_multi_socket_action` on that thread), or by `init` before it starts.
// @unchecked: `pending` is a Mutex, `sleeping` an Atomic; the rest is confined to the I/O thread.
final class IOLoop: @unchecked Sendable {
    struct Pending {
        var submissions: [HTTPTransfer] = []
        var cancels: [HTTPTransfer] = []
        /// Jobs of user tasks enqueued from other threads (`IOLoop+Executor`).
        var jobs: [UnownedJob] = []
        var stopping = false
        /// Set once the thread has exited: later jobs go to Swift's global executor.
        var closed = false
    }

    let connectTimeout: Double
    private let epollFD: Int32
    private let wakeFD: Int32
    let pending = Mutex(Pending())
    /// True while the thread is (about to be) blocked in epoll_wait; a submitter that flips it
    /// back is the one that writes the eventfd, so a busy loop costs no wake-up syscalls.
    private let sleeping = Atomic<Bool>(false)
    private let exited = DispatchSemaphore(value: 0)
    /// Transfers submitted to this loop and not yet completed.
    let inFlight = Atomic<Int>(0)
    /// Clip uploads in `uploadQueue` (a health figure; written only by the I/O thread).
    let uploadsWaiting = Atomic<Int>(0)
    /// This loop's share of `maxConcurrentUploads` (0 = unlimited).
    let uploadLimit: Int
    /// `Configuration.sourceAddress`, set on every easy handle this loop creates.
    let sourceAddress: String?

    // MARK: I/O-thread state.
    /// `EngineLevers.cachedClock`, and the clock reading of the current turn when it is on.
    let cachedClock = EngineLevers.current.cachedClock
    var turnClock = MonotonicClock.now()
    var shards: [MultiShard] = []
    /// The epoll registrations of curl's sockets (`EngineLevers.lazyEpoll`).
    var interest: EpollInterest
    /// `EngineLevers.driveUploads`.
    private let driveUploads = EngineLevers.current.driveUploads
    /// Sockets curl began to want written this turn, with their shard (`driveWrites`).
    private var writeSoon: [(curl_socket_t, MultiShard)] = []
    /// Upload pieces read by curl on this loop so far (`HTTPTransfer.fillUpload`): how
    /// `driveWrites` tells a round that sent more of a body from one that could not.
    var uploadPieces = 0
    /// What the tests read of the loop's work (written by the I/O thread, relaxed).
    let stats = Stats()
    /// `EngineLevers.heapReserveBytes`, reserved in this thread's malloc arena when it starts.
    private let reserveHeap = EngineLevers.current.heapReserveBytes
    var active: [HTTPTransfer] = []
    var idle: [EasyHandle] = []
    /// Completions of this iteration, handed to their queues in one batch per queue.
    var completed: [(HTTPTransfer, Result<HTTPResponse, HTTPError>)] = []
    /// Clip uploads holding a sending slot.
    var uploadsSending = 0
    /// Clip uploads waiting for a slot, FIFO from `uploadQueueHead` (cancelled ones stay in
    /// place with `waitsForUploadSlot` cleared and are skipped).
    var uploadQueue: [HTTPTransfer] = []
    var uploadQueueHead = 0
    /// Jobs of user tasks enqueued on this thread, and the batch being run.
    var localJobs: [UnownedJob] = []
    var jobBatch: [UnownedJob] = []
    /// Transfers sent by user tasks running on this thread, started after their batch of jobs.
    var localSubmissions: [HTTPTransfer] = []
    /// `Pause` timers of the user tasks on this thread.
    var timers = TimerHeap()
    /// Set when the thread starts aborting everything: a send from a completion it runs then is
    /// refused (completed as aborted) instead of queued behind the last look at the queue.
    var shuttingDown = false

    init(configuration: HTTPEngine.Configuration, index: Int) throws {
        let ep = epoll_create1(Int32(EPOLL_CLOEXEC))
        let wake = eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
        guard ep >= 0, wake >= 0 else {
            let reason = String(cString: strerror(errno))
            if ep >= 0 { close(ep) }
            throw HTTPError(kind: .other, message: "cannot create epoll/eventfd: \(reason)")
        }
        epollFD = ep
        wakeFD = wake
        interest = EpollInterest(epollFD: ep, lazy: EngineLevers.current.lazyEpoll)
        connectTimeout = configuration.connectTimeout
        sourceAddress = configuration.sourceAddress
        let uploads = configuration.maxConcurrentUploads
        uploadLimit = uploads == 0 ? 0 : (uploads + configuration.ioThreads - 1) / configuration.ioThreads
        var ev = epoll_event()
        ev.events = EPOLLIN.rawValue
        ev.data.u64 = Self.wakeToken
        epoll_ctl(ep, EPOLL_CTL_ADD, wake, &ev)

        // Each shard gets its share of the engine-wide limits (rounded up; 0 stays unlimited).
        // A small limit gets fewer shards, so that rounding up cannot multiply it.
        var perThread = configuration.multiHandlesPerThread
        if let smallest = [configuration.maxConnections, configuration.maxConnectionsPerHost].filter({ $0 > 0 }).min() {
            perThread = max(1, min(perThread, smallest / configuration.ioThreads))
        }
        let count = configuration.ioThreads * perThread
        func share(_ limit: Int) -> Int { limit == 0 ? 0 : (limit + count - 1) / count }
        for i in 0..<perThread {
            shards.append(try MultiShard(index: i, maxConnections: share(configuration.maxConnections),
                                         maxConnectionsPerHost: share(configuration.maxConnectionsPerHost),
                                         connectionCacheSize: share(configuration.connectionCacheSize)) { [unowned self] socket, what, shard in
                watch(socket, what: what, shard: shard)
            })
        }
        let thread = Thread { [self] in run() }
        thread.name = "fleet-http-io-\(index)"
        thread.start()
    }

    deinit {
        close(epollFD)
        close(wakeFD)
    }

    // MARK: Any thread.

    /// Queues a transfer for the I/O thread; false when the loop is stopping (caller aborts it).
    func submit(_ transfer: HTTPTransfer) -> Bool {
        // Counted before it becomes visible to the I/O thread, so the count never goes negative.
        inFlight.wrappingAdd(1, ordering: .relaxed)
        // From this loop's thread (a user task, or a completion sending the next request): no
        // lock, no wake-up; started later in the same turn.
        if isLoopThread {
            if shuttingDown {
                inFlight.wrappingSubtract(1, ordering: .relaxed)
                return false
            }
            localSubmissions.append(transfer)
            return true
        }
        let accepted = pending.withLock { p -> Bool in
            if p.stopping { return false }
            p.submissions.append(transfer)
            return true
        }
        guard accepted else {
            inFlight.wrappingSubtract(1, ordering: .relaxed)
            return false
        }
        wakeIfSleeping()
        return true
    }

    func requestCancel(_ transfer: HTTPTransfer) {
        pending.withLock { $0.cancels.append(transfer) }
        wakeIfSleeping()
    }

    /// Stops the thread after aborting everything pending and running, and waits for it to exit.
    /// Never called from a loop's own thread (a user task): it would wait for itself.
    func stop() {
        let first = pending.withLock { p -> Bool in
            defer { p.stopping = true }
            return !p.stopping
        }
        guard first else { return }
        wake()
        exited.wait()
    }

    func wakeIfSleeping() {
        if sleeping.exchange(false, ordering: .sequentiallyConsistent) { wake() }
    }

    private func wake() {
        var one: UInt64 = 1
        _ = write(wakeFD, &one, 8)
    }

    // MARK: I/O thread.

    private func run() {
        if reserveHeap > 0 { fleet_reserve_thread_heap(reserveHeap) }
        LoopThread.set(self)
        defer { LoopThread.set(nil) }
        var submissions: [HTTPTransfer] = []
        var cancels: [HTTPTransfer] = []
        var jobs: [UnownedJob] = []
        var stopping = false
        let capacity: Int32 = 1024
        let events = UnsafeMutablePointer<epoll_event>.allocate(capacity: Int(capacity))
        defer { events.deallocate() }
        while true {
            pending.withLock { p in
                swap(&submissions, &p.submissions)
                swap(&cancels, &p.cancels)
                swap(&jobs, &p.jobs)
                stopping = p.stopping
            }
            if !jobs.isEmpty {
                localJobs.append(contentsOf: jobs)
                jobs.removeAll(keepingCapacity: true)
            }
            for t in submissions { start(t) }
            submissions.removeAll(keepingCapacity: true)
            for t in cancels {
                if t.slot >= 0 {
                    finish(t, .failure(HTTPError(kind: .aborted, message: "cancelled", timings: t.easy?.timings())))
                } else if t.waitsForUploadSlot {
                    dropQueuedUpload(t)
                }
            }
            cancels.removeAll(keepingCapacity: true)
            if stopping { break }
            // User tasks on this loop: timers due, then the jobs queued (their requests start
            // right after), then curl's work; answers that resumed tasks are run in the same
            // turn, a few rounds at most before the sockets are polled again.
            var rounds = 0
            repeat {
                rounds += 1
                if !timers.isEmpty { fireDueTimers(now: MonotonicClock.now()) }
                runJobs()
                if !localSubmissions.isEmpty {
                    for t in localSubmissions { start(t) }
                    localSubmissions.removeAll(keepingCapacity: true)
                }
                let now = cachedClock ? turnClock : MonotonicClock.now()
                for shard in shards { shard.fireTimerIfDue(now: now) }
                if !writeSoon.isEmpty { driveWrites() }
                collectFinished()
                // Slots freed by this iteration's finished or cancelled uploads go to waiting ones
                // here, outside curl's callbacks and its info-read loop.
                startQueuedUploads()
                flushCompletions()
            } while (!localJobs.isEmpty || !localSubmissions.isEmpty || !writeSoon.isEmpty) && rounds < 4

            sleeping.store(true, ordering: .sequentiallyConsistent)
            let hasWork = !localJobs.isEmpty || !localSubmissions.isEmpty || !writeSoon.isEmpty
                || pending.withLock { !$0.submissions.isEmpty || !$0.cancels.isEmpty || !$0.jobs.isEmpty || $0.stopping }
            interest.flush()
            stats.note(interest.controlCalls)
            let n = wait(events, capacity, nanos: hasWork ? 0 : waitNanos())
            sleeping.store(false, ordering: .sequentiallyConsistent)
            if cachedClock { setTurnClock(MonotonicClock.now()) }
            for i in 0..<Int(max(n, 0)) {
                let ev = events[i]
                let token = ev.data.u64
                if token == Self.wakeToken {
                    var drained: UInt64 = 0
                    _ = read(wakeFD, &drained, 8)
                    continue
                }
                let socket = curl_socket_t(truncatingIfNeeded: token)
                guard interest.wants(socket) else { continue }
                var mask: Int32 = 0
                if ev.events & EPOLLIN.rawValue != 0 { mask |= CURL_CSELECT_IN }
                if ev.events & EPOLLOUT.rawValue != 0 { mask |= CURL_CSELECT_OUT }
                if ev.events & (EPOLLERR.rawValue | EPOLLHUP.rawValue) != 0 { mask |= CURL_CSELECT_ERR }
                let shard = shards[Int(token >> 32)]
                if driveUploads && mask == CURL_CSELECT_OUT && interest.wantsWriting(socket) {
                    writeSoon.append((socket, shard))  // a full socket drained: driven on from here
                } else {
                    shard.act(on: socket, events: mask)
                }
            }
        }
        shutDownTransfers()
        handOffAfterStop()
        // Idle easy handles are already out of their multi handles; free both on this thread.
        idle.removeAll()
        shards.removeAll()
        assert(interest.registeredCount == 0, "\(interest.registeredCount) sockets curl closed are still taken for registered in epoll")
        exited.signal()
    }

    /// Shutdown: whatever arrived last and whatever is running ends as aborted.
    private func shutDownTransfers() {
        shuttingDown = true
        let late = pending.withLock { p -> [HTTPTransfer] in
            defer { p.submissions.removeAll() }
            return p.submissions
        }
        for t in late + localSubmissions { complete(t, .failure(HTTPError(kind: .aborted, message: "engine shut down"))) }
        localSubmissions.removeAll()
        while let t = nextQueuedUpload() {
            complete(t, .failure(HTTPError(kind: .aborted, message: "engine shut down")))
        }
        while let t = active.last {
            finish(t, .failure(HTTPError(kind: .aborted, message: "engine shut down", timings: t.easy?.timings())))
        }
        flushCompletions()
    }

    /// One clock reading per loop turn, taken when epoll_wait returns, for the timer check and
    /// curl's timer callbacks of that turn (`EngineLevers.cachedClock`).
    private func setTurnClock(_ now: UInt64) {
        turnClock = now
        for shard in shards { shard.turnClock = now }
    }

    /// Nanoseconds until curl's timer or the users' next timer, at most 1 s (a bound, not a need).
    private func waitNanos() -> UInt64 {
        let timerDeadline = shards.reduce(timers.nextDeadline) { min($0, $1.timerDeadline) }
        if timerDeadline == .max { return 1_000_000_000 }
        let now = MonotonicClock.now()
        if now >= timerDeadline { return 0 }
        return min(1_000_000_000, timerDeadline - now)
    }

    /// Waits for events at most `nanos`. `epoll_pwait2` takes the wait in nanoseconds: with
    /// users' think times on this loop, `epoll_wait`'s whole milliseconds (rounded up) made every
    /// pause end up to a millisecond late, which is scheduling lag. Kernels before 5.11 lack it
    /// (ENOSYS): then milliseconds, rounded up.
    private func wait(_ events: UnsafeMutablePointer<epoll_event>, _ capacity: Int32, nanos: UInt64) -> Int32 {
        if Self.preciseWait.load(ordering: .relaxed) {
            var ts = timespec(tv_sec: Int(nanos / 1_000_000_000), tv_nsec: Int(nanos % 1_000_000_000))
            let n = epoll_pwait2(epollFD, events, capacity, &ts, nil)
            if n >= 0 || errno != ENOSYS { return n }
            Self.preciseWait.store(false, ordering: .relaxed)
        }
        return epoll_wait(epollFD, events, capacity, Int32((nanos + 999_999) / 1_000_000))
    }

    private static let preciseWait = Atomic<Bool>(true)

    /// Hands curl the sockets it began to want written as writable, again and again while each
    /// round reads another piece of an upload's body (`EngineLevers.driveUploads`).
    ///
    /// libcurl 7.88 sends one upload-buffer piece (16 KiB here) per `socket_action` and then asks
    /// for the socket's writability, so a 64 KB clip took four epoll round trips and an
    /// EPOLL_CTL_MOD there and back. A connected loopback socket is writable far more often than
    /// not; when it is not, curl's send meets EAGAIN, reads no piece, and the socket goes to
    /// epoll as before (`EpollInterest.flush` at the end of the turn), so nothing waits longer
    /// than it would have. epoll watches a socket for writing only when it is full or its body
    /// outlasts the turn (over 4 MiB). A socket just opened (curl wants it written to learn that
    /// it connected) is not driven: `EpollInterest.watch` reports only a socket being read.
    private func driveWrites() {
        var i = 0
        var rounds = 0, stalled = 0, drives = 0
        var later: [(curl_socket_t, MultiShard)] = []
        while i < writeSoon.count {  // a round can add another socket (a second transfer's)
            let (socket, shard) = writeSoon[i]
            i += 1
            drives += 1
            // At most 64 pieces (1 MiB) a socket at a time, so one large body cannot hold the
            // loop: the rest is driven after the other sockets' events (a turn without waiting).
            var n = 0
            while n < 64 && interest.wantsWriting(socket) {
                let pieces = uploadPieces
                shard.act(on: socket, events: CURL_CSELECT_OUT)
                n += 1
                if uploadPieces == pieces {
                    stalled += 1
                    break
                }
            }
            rounds += n
            if n == 64 && interest.wantsWriting(socket) { later.append((socket, shard)) }
        }
        writeSoon.removeAll(keepingCapacity: true)
        writeSoon.append(contentsOf: later)
        stats.drove(sockets: drives, rounds: rounds, stalled: stalled)
    }

    /// CURLMOPT_SOCKETFUNCTION of every shard: mirror curl's interest in `socket` into the epoll
    /// set, tagged with the shard so a ready socket goes back to the multi handle that owns it.
    private func watch(_ socket: curl_socket_t, what: Int32, shard: MultiShard) {
        if what == CURL_POLL_REMOVE {
            interest.unwatch(socket)
            return
        }
        let events = (what & CURL_POLL_IN != 0 ? EPOLLIN.rawValue : 0) | (what & CURL_POLL_OUT != 0 ? EPOLLOUT.rawValue : 0)
        if interest.watch(socket, events: events, token: UInt64(shard.index) << 32 | UInt64(UInt32(bitPattern: socket)))
            && driveUploads {
            writeSoon.append((socket, shard))
        }
    }

    /// The epoll token of the wake-up eventfd (no shard index reaches it).
    private static let wakeToken = UInt64.max

    /// Counts of the loop's work that the tests read from another thread.
    final class Stats: Sendable {
        private let controls = Atomic<Int>(0)
        private let drives = Atomic<Int>(0)
        private let driven = Atomic<Int>(0)
        private let stalls = Atomic<Int>(0)
        /// epoll_ctl calls made so far.
        var epollControls: Int { controls.load(ordering: .relaxed) }
        /// Sockets `driveWrites` took up (each drive ends at a round that sends no piece, at
        /// curl's last piece, or after 64 pieces), the rounds it handed curl a socket as writable,
        /// and those rounds that sent no piece.
        var drivenSockets: Int { drives.load(ordering: .relaxed) }
        var drivenRounds: Int { driven.load(ordering: .relaxed) }
        var stalledRounds: Int { stalls.load(ordering: .relaxed) }

        func note(_ controlCalls: Int) {
            if controls.load(ordering: .relaxed) != controlCalls { controls.store(controlCalls, ordering: .relaxed) }
        }

        func drove(sockets: Int, rounds: Int, stalled: Int) {
            drives.wrappingAdd(sockets, ordering: .relaxed)
            driven.wrappingAdd(rounds, ordering: .relaxed)
            if stalled > 0 { stalls.wrappingAdd(stalled, ordering: .relaxed) }
        }
    }
}
