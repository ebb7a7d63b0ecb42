/// Runs `body(i)` for every `i` in `0..<count`, each in its own child task, and returns when
/// all have returned; the children sit in nested task groups of at most `fanOut` each.
///
/// Why not one task group: the Swift runtime keeps a group's children in a singly linked list
/// and removing a finished child walks it from the head (`swift::TaskGroup::removeChildTask`).
/// When 50,000 user slots of one group end together (the stop at a run's end), that walk is
/// quadratic: `fleet run` at 50,000 users spun there (95 % of CPU samples in `perf`) for over
/// 120 s after its planned end, 5 s at 20,000. Groups of ≤ 256 keep every walk short, and
/// cancelling the outer task still reaches every child through the nesting.
func forEachConcurrently(_ count: Int, fanOut: Int = 256, _ body: @escaping @Sendable (Int) async -> Void) async {
    await forEachConcurrently(in: 0..<max(0, count), fanOut: max(2, fanOut), body)
}

private func forEachConcurrently(in range: Range<Int>, fanOut: Int, _ body: @escaping @Sendable (Int) async -> Void) async {
    await withTaskGroup(of: Void.self) { group in
        if range.count <= fanOut {
            for i in range { group.addTask { await body(i) } }
            return
        }
        let step = (range.count + fanOut - 1) / fanOut
        for low in stride(from: range.lowerBound, to: range.upperBound, by: step) {
            let part = low..<min(low + step, range.upperBound)
            group.addTask { await forEachConcurrently(in: part, fanOut: fanOut, body) }
        }
    }
}
