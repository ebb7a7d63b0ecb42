/// Room for a long-lived task's async frames, made in one piece before the task goes deep.
///
/// An async function's frame is allocated on its task's allocator (Swift's `StackAllocator`):
/// slabs of at least 984 bytes, one more whenever the next frame does not fit in what is left,
/// and none given back until the task ends (an empty slab is kept for reuse; one too small is
/// merged with those after it into a larger one). A virtual user thinks for minutes at the
/// bottom of a chain of ~600-byte frames, and its task kept the slabs its deepest call reached,
/// a third of each slab left empty: 9.6 KB per daily-quest user, most of its memory
/// (heaptrack, bench/task-memory.sh). A task that first calls `reserve()` gets one slab of
/// `Room`'s size; the frames that do not fit in its first slab then follow each other in it
/// with no gap, and a path deeper than the room only adds slabs after it, as before.
public enum TaskFrames {
    /// Makes the calling task's allocator hold a slab of `Room`'s size after the current one,
    /// then gives the room back (kept by the allocator for the frames that come after).
    @inline(never)
    public static func reserve() async {
        var room = Room()
        // A suspension: the room must be in this function's frame, not on the thread's stack.
        await withUnsafeContinuation { (c: UnsafeContinuation<Void, Never>) in c.resume() }
        withUnsafeMutableBytes(of: &room) { touch($0) }
    }

    /// Opaque to the optimizer, so that the room is neither dropped nor cut to what is read.
    @inline(never) @_optimize(none)
    static func touch(_ bytes: UnsafeMutableRawBufferPointer) {
        _ = bytes.count
    }

    struct Row { var a: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0) }
    struct Block { var r: (Row, Row, Row, Row, Row, Row, Row, Row) = (Row(), Row(), Row(), Row(), Row(), Row(), Row(), Row()) }
    /// 11 blocks of 512 bytes, 5,632: what a daily-quest user's frames reach below its slot's
    /// first slab (5.1 KB with the allocator's headers, at its sign-in), and some to spare.
    struct Room {
        var b: (Block, Block, Block, Block, Block, Block, Block, Block, Block, Block, Block) =
            (Block(), Block(), Block(), Block(), Block(), Block(), Block(), Block(), Block(), Block(), Block())
    }
}
