/// The I/O loop's own timers (users' think times and poll intervals when the users run on the
/// loop): a binary min-heap on (deadline, order of scheduling), so timers with one deadline fire
/// in the order they were set. Confined to the loop's thread; no lock.
struct TimerHeap {
    struct Entry {
        let deadline: UInt64
        let order: UInt64
        let fire: @Sendable () -> Void
    }

    private(set) var entries: [Entry] = []
    private var scheduled: UInt64 = 0

    var isEmpty: Bool { entries.isEmpty }
    /// The earliest deadline, or `.max` when there is none.
    var nextDeadline: UInt64 { entries.first?.deadline ?? .max }

    mutating func push(_ deadline: UInt64, _ fire: @escaping @Sendable () -> Void) {
        scheduled &+= 1
        entries.append(Entry(deadline: deadline, order: scheduled, fire: fire))
        var i = entries.count - 1
        while i > 0 {
            let parent = (i - 1) / 2
            guard Self.earlier(entries[i], entries[parent]) else { break }
            entries.swapAt(i, parent)
            i = parent
        }
    }

    /// Removes and returns the earliest timer if it is due at `now`.
    mutating func popDue(now: UInt64) -> Entry? {
        guard let first = entries.first, first.deadline <= now else { return nil }
        let last = entries.removeLast()
        guard !entries.isEmpty else { return first }
        entries[0] = last
        var i = 0
        while true {
            let l = 2 * i + 1, r = l + 1
            var m = i
            if l < entries.count && Self.earlier(entries[l], entries[m]) { m = l }
            if r < entries.count && Self.earlier(entries[r], entries[m]) { m = r }
            if m == i { break }
            entries.swapAt(i, m)
            i = m
        }
        return first
    }

    private static func earlier(_ a: Entry, _ b: Entry) -> Bool {
        a.deadline != b.deadline ? a.deadline < b.deadline : a.order < b.order
    }
}
