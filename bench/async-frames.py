#!/usr/bin/env python3
"""bench/async-frames.py BINARY [SUBSTRING ...] — the async frame (context) size of every async
function in a Swift binary whose mangled name holds all the SUBSTRINGs, largest last.

A Swift async function's context lives on its task's allocator, and the task keeps the slabs of
the deepest chain of calls it ever reached until it ends: for a virtual user that thinks for
minutes, the sum of the frames on its deepest path is memory held per user. Each async function
has an "async function pointer" record (mangled name ending in `Tu`): a 32-bit relative offset to
the function, then the 32-bit size of its context. This reads those records from the ELF file.

  bench/async-frames.py .build/release/fleet attempts HomeInfo
  bench/async-frames.py .build/release/fleet FleetJourneys | tail
"""
import struct, subprocess, sys

def sections(path):
    out = []
    for line in subprocess.run(["readelf", "-S", "-W", path], capture_output=True, text=True).stdout.splitlines():
        parts = line.split("]")
        if len(parts) < 2:
            continue
        f = parts[1].split()
        try:
            out.append((int(f[2], 16), int(f[3], 16), int(f[4], 16)))  # address, file offset, size
        except (IndexError, ValueError):
            pass
    return out

def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    path, wanted = sys.argv[1], sys.argv[2:]
    data = open(path, "rb").read()
    secs = sections(path)
    rows = []
    for line in subprocess.run(["nm", path], capture_output=True, text=True).stdout.splitlines():
        f = line.split()
        if len(f) < 3 or not f[2].endswith("Tu") or not all(w in f[2] for w in wanted):
            continue
        addr = int(f[0], 16)
        for a, off, size in secs:
            if a and a <= addr < a + size:
                _, ctx = struct.unpack("<iI", data[off + addr - a: off + addr - a + 8])
                rows.append((ctx, f[2]))
                break
    names = subprocess.run(["swift-demangle", "--simplified"], input="\n".join(n for _, n in rows),
                           capture_output=True, text=True).stdout.splitlines() if rows else []
    if len(names) != len(rows):
        names = [n for _, n in rows]
    for (ctx, _), name in sorted(zip(rows, names)):
        print(f"{ctx:6d}  {name.replace('async function pointer to ', '')[:160]}")

if __name__ == "__main__":
    main()
