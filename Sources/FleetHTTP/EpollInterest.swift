import CCurlShim
import Foundation

/// An I/O loop's epoll registrations of curl's sockets, kept past curl's interest in them
/// (`EngineLevers.lazyEpoll`).
///
/// On a keep-alive connection curl says REMOVE when a transfer ends and IN again when the next
/// one starts on the same socket: an EPOLL_CTL_DEL and an EPOLL_CTL_ADD a request (1.8
/// `epoll_ctl` a request in the daily quest, each with the kernel's allocation and wait-queue
/// work). Here a socket curl stops watching stays in the epoll set with its last events, marked
/// unwanted; curl's next interest in it with the same events then costs no system call. It
/// really leaves the set when it reports an event nobody wants (a parked connection the server
/// closed, a writable one), which then goes to no one, as it would not have been watched.
///
/// The one hazard is a descriptor number reused: the kernel drops a socket from the set when it
/// is closed, and a new socket with the same number must not pass for registered. So only
/// connection sockets are parked: the engine opens and closes them itself
/// (CURLOPT_OPENSOCKETFUNCTION / CLOSESOCKETFUNCTION, on every easy handle), marks them
/// `opened`, and `closing` forgets the entry before the number is free again. libcurl 7.88
/// closes a connection's sockets through that callback (`socket_close` with the connection's
/// `fclosesocket`) except sockets it accepted (FTP's active mode, ruled out by `http,https`).
/// Its other sockets, such as the threaded resolver's socket pair, which it closes itself right
/// after its REMOVE, leave the set at once.
///
/// Changes are applied when the loop is about to wait (`flush`), not as curl makes them: a socket
/// curl wants written and then, in the same turn, no longer (an upload driven to its end at once,
/// `IOLoop.driveWrites`) then costs no `epoll_ctl` at all.
///
/// Touched only by the I/O thread (curl calls both callbacks from inside its calls made there).
struct EpollInterest {
    private struct Entry {
        /// What curl last asked for (kept while parked), reported with `token`.
        var events: UInt32 = 0
        var token: UInt64 = 0
        /// In the epoll set, with `setEvents` and `setToken`.
        var registered = false
        var setEvents: UInt32 = 0
        var setToken: UInt64 = 0
        /// curl watches it; false for a socket parked in the set after curl's REMOVE.
        var wanted = false
        /// A connection socket the engine opened (and will hear of closing): may be parked.
        var parkable = false
        /// In `changed`, to be applied by the next `flush`.
        var pending = false
    }

    let epollFD: Int32
    let lazy: Bool
    private var entries: [Entry] = []
    /// Sockets whose wanted registration may differ from the set's (`flush`).
    private var changed: [Int32] = []
    /// epoll_ctl calls made (what the tests count; I/O thread only).
    private(set) var controlCalls = 0

    init(epollFD: Int32, lazy: Bool) {
        self.epollFD = epollFD
        self.lazy = lazy
    }

    /// curl wants `events` (EPOLLIN/EPOLLOUT bits) on `socket`, reported with `token`; applied by
    /// the next `flush`. True when curl now wants to write on a socket it was reading before (an
    /// upload's body after its head, on an established connection), not to connect.
    @discardableResult
    mutating func watch(_ socket: Int32, events: UInt32, token: UInt64) -> Bool {
        guard socket >= 0 else { return false }
        grow(to: socket)
        let before = entries[Int(socket)].events
        entries[Int(socket)].wanted = true
        entries[Int(socket)].events = events
        entries[Int(socket)].token = token
        if !entries[Int(socket)].pending {
            entries[Int(socket)].pending = true
            changed.append(socket)
        }
        let out = EPOLLOUT.rawValue
        return events & out != 0 && before & out == 0 && before & EPOLLIN.rawValue != 0
    }

    /// Whether curl, as of now, wants to write on `socket`.
    func wantsWriting(_ socket: Int32) -> Bool {
        guard socket >= 0, Int(socket) < entries.count else { return false }
        return entries[Int(socket)].wanted && entries[Int(socket)].events & EPOLLOUT.rawValue != 0
    }

    /// Brings the epoll set to what curl wants: one ADD or MOD for each watched socket whose
    /// events or token changed since the set last held it; parked sockets stay as they are.
    mutating func flush() {
        for socket in changed {
            let i = Int(socket)
            guard entries[i].pending else { continue }  // closed since, and not watched again
            entries[i].pending = false
            let e = entries[i]
            guard e.wanted, !(e.registered && e.setEvents == e.events && e.setToken == e.token) else { continue }
            var ev = epoll_event()
            ev.events = e.events
            ev.data.u64 = e.token
            var rc: Int32
            if e.registered {
                rc = control(EPOLL_CTL_MOD, socket, &ev)
                if rc != 0 && errno == ENOENT { rc = control(EPOLL_CTL_ADD, socket, &ev) }
            } else {
                rc = control(EPOLL_CTL_ADD, socket, &ev)
                if rc != 0 && errno == EEXIST { rc = control(EPOLL_CTL_MOD, socket, &ev) }
            }
            entries[i].registered = rc == 0
            entries[i].setEvents = e.events
            entries[i].setToken = e.token
        }
        changed.removeAll(keepingCapacity: true)
    }

    /// Sockets in the epoll set. Once every multi handle is cleaned up, curl has closed all its
    /// sockets, so anything left here was closed without `closing` (checked in debug builds).
    var registeredCount: Int { entries.reduce(0) { $0 + ($1.registered ? 1 : 0) } }

    /// curl no longer watches `socket`: parked in the set when lazy, else removed from it.
    mutating func unwatch(_ socket: Int32) {
        guard socket >= 0, Int(socket) < entries.count else { return }  // never watched
        entries[Int(socket)].wanted = false
        if !lazy || !entries[Int(socket)].parkable {
            remove(socket)
            entries[Int(socket)].events = 0  // its number may come back as a socket not yet read from
        }
    }

    /// The engine opened `socket` for one of curl's connections (and will call `closing`).
    mutating func opened(_ socket: Int32) {
        guard socket >= 0 else { return }
        grow(to: socket)
        entries[Int(socket)] = Entry()
        entries[Int(socket)].parkable = true
    }

    /// Whether an event on `socket` goes to curl; one on a parked socket removes it from the set.
    mutating func wants(_ socket: Int32) -> Bool {
        guard socket >= 0, Int(socket) < entries.count else { return true }
        if entries[Int(socket)].wanted { return true }
        remove(socket)
        return false
    }

    /// `socket` is about to be closed: the kernel drops it from the set, and its number may
    /// come back as another socket's.
    mutating func closing(_ socket: Int32) {
        guard socket >= 0, Int(socket) < entries.count else { return }
        entries[Int(socket)] = Entry()
    }

    private mutating func grow(to socket: Int32) {
        if Int(socket) >= entries.count { entries.append(contentsOf: repeatElement(Entry(), count: Int(socket) + 1 - entries.count)) }
    }

    private mutating func remove(_ socket: Int32) {
        if entries[Int(socket)].registered { _ = control(EPOLL_CTL_DEL, socket, nil) }
        entries[Int(socket)].registered = false
    }

    private mutating func control(_ op: Int32, _ socket: Int32, _ ev: UnsafeMutablePointer<epoll_event>?) -> Int32 {
        controlCalls += 1
        return epoll_ctl(epollFD, op, socket, ev)
    }
}
