import XCTest
@testable import FleetCore

/// `TaskFrames.reserve()` against the runtime it works around. Swift's task allocator opens a
/// slab of at least 984 bytes whenever the next frame does not fit in the current one, so
/// frames of ~600 bytes each get a slab of their own; after `reserve()`, the frames beyond the
/// task's first slab sit back to back in the room. (If the optimizer cut the room out of
/// `reserve`'s frame, or the runtime stopped keeping a freed slab for the frames after it, the
/// frames would be apart again and this fails.)
final class TaskFramesTests: XCTestCase {
    func testWithRoomTheDeepFramesSitBackToBack() async {
        let plain = await Task { await Deep.descend(9) }.value
        let roomy = await Task { () async -> [Deep.Level] in
            await TaskFrames.reserve()
            return await Deep.descend(9)
        }.value
        XCTAssertEqual(plain.map(\.sum), Array(1...9), "each level's frame kept its bytes across its await")
        XCTAssertEqual(roomy.map(\.sum), Array(1...9))

        // The distance from each frame to the one made after it (one level deeper).
        func steps(_ levels: [Deep.Level]) -> [Int] {
            zip(levels, levels.dropFirst()).map { Int(bitPattern: $0.0.address) - Int(bitPattern: $0.1.address) }
        }
        let roomySteps = steps(roomy), plainSteps = steps(plain)
        // In one slab, one frame after the other: the same step each time (the frame and its header).
        let step = Dictionary(grouping: roomySteps, by: { $0 }).max { $0.value.count < $1.value.count }!.key
        XCTAssertGreaterThan(step, 984 / 2, "two frames should not fit in one of the allocator's slabs")
        XCTAssertLessThan(step, 984)
        XCTAssertGreaterThanOrEqual(roomySteps.filter { $0 == step }.count, 5, "with room: \(roomySteps)")
        // Without it, each frame is in a slab of its own: never that step apart.
        XCTAssertLessThanOrEqual(plainSteps.filter { $0 == step }.count, 1, "without room: \(plainSteps)")
    }
}

/// An async function whose frame holds 576 bytes across its await.
private enum Deep {
    struct Level {
        /// Where this level's bytes are (in its frame: they live across the await).
        let address: UInt
        /// What they summed to after the await (the level's depth).
        let sum: Int
    }

    /// Levels from the deepest (1) to this one (`depth`).
    static func descend(_ depth: Int) async -> [Level] {
        var pad = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                   0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                   0, 0, 0, 0, 0, 0, 0, 0)
        pad.0 = depth
        let address = withUnsafeMutableBytes(of: &pad) { UInt(bitPattern: $0.baseAddress) }
        var levels = depth > 1 ? await descend(depth - 1) : await below()
        let sum = withUnsafeBytes(of: &pad) { b in b.withMemoryRebound(to: Int.self) { $0.reduce(0, &+) } }
        levels.append(Level(address: address, sum: sum))
        return levels
    }

    /// The bottom: a suspension, as a user's think is.
    private static func below() async -> [Level] {
        await withUnsafeContinuation { (c: UnsafeContinuation<Void, Never>) in c.resume() }
        return []
    }
}
