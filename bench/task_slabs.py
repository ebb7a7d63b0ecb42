#!/usr/bin/env python3
"""bench/task_slabs.py LOG BINARY — one task's async frames laid out as Swift's task allocator
lays them (bench/task-slabs.sh records LOG).

The runtime's `StackAllocator<984>` (libswift_Concurrency) puts each frame after the last one in
the current slab; a frame that does not fit goes to the next slab if that one (empty) can hold
it, else every slab after the current one is freed and one slab of at least their summed
capacity is made. Slabs of at least 984 bytes, each allocation with a 16-byte header, a slab
with 32; nothing is given back until the task ends. Prints each allocation (indented by depth,
named by the function that made it, i.e. the caller of the frame allocated), the slab it went
to and the bytes the task's slabs hold after it; then what they hold when the user first
pauses (a think) and at the end of the log.
"""
import subprocess, sys

CAPACITY, ALLOC_HEADER, SLAB_HEADER = 984, 16, 32

def names(offsets, binary):
    out = subprocess.run(["addr2line", "-f", "-e", binary] + offsets, capture_output=True, text=True).stdout.split("\n")
    mangled = out[0::2][:len(offsets)]
    demangled = subprocess.run(["swift", "demangle", "--simplified", "--compact"], input="\n".join(mangled),
                               capture_output=True, text=True).stdout.split("\n")
    return dict(zip(offsets, demangled))

def main():
    log, binary = sys.argv[1], sys.argv[2]
    events, live = [], set()
    for line in open(log):
        p = line.split()
        if p[0] == "A":
            events.append((int(p[1]), p[2])); live.add(p[3])
        elif p[1] in live:
            events.append(None); live.discard(p[1])
    who = names(sorted({e[1] for e in events if e}), binary)
    slabs, stack, at_think = [], [], None  # slabs: [capacity, used]; stack: (slab, bytes)
    most = {}  # slab index -> the most bytes it held at once
    held = lambda: sum(c + SLAB_HEADER for c, _ in slabs)
    for i, e in enumerate(events):
        if e is None:
            s, n = stack.pop(); slabs[s][1] -= n
            continue
        size, where = e
        n = (size + 15) // 16 * 16 + ALLOC_HEADER
        cur = stack[-1][0] if stack else 0
        if not slabs:
            slabs.append([max(CAPACITY, n), 0])
        if slabs[cur][1] + n <= slabs[cur][0]:
            s, note = cur, ""
        elif cur + 1 < len(slabs) and slabs[cur + 1][1] + n <= slabs[cur + 1][0]:
            s, note = cur + 1, ""
        else:
            freed = sum(c for c, _ in slabs[cur + 1:]); del slabs[cur + 1:]
            slabs.append([max(CAPACITY, n, freed), 0]); s = len(slabs) - 1
            note = f"  NEW SLAB of {slabs[s][0]} (left empty in the one before: {slabs[cur][0] - slabs[cur][1]})"
        slabs[s][1] += n; stack.append((s, n))
        # A frame larger than a slab and freed at once (TaskFrames.reserve's room) is not use.
        if not (size > CAPACITY and i + 1 < len(events) and events[i + 1] is None):
            most[s] = max(most.get(s, 0), slabs[s][1])
        name = who.get(where, where)
        print(f"{'  ' * len(stack)}{size:5d} by {name[:80]} [slab {s}] held {held()}{note}")
        if at_think is None and "VirtualUser.pause" in name:
            at_think = held()
    print(f"\nslabs {[c for c, _ in slabs]}, the most each held at once {[most.get(i, 0) for i in range(len(slabs))]}; "
          f"held at the first think: {at_think}; at the end: {held()} bytes")

if __name__ == "__main__":
    main()
