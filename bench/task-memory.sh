#!/usr/bin/env bash
# bench/task-memory.sh — where a thinking user's memory is: heaptrack over a run of USERS
# daily-quest users who sign in, read home and think for 10 minutes (checks off, embedded stack),
# then the peak heap by allocation site. The line that matters is the Swift task allocator
# (`swift::StackAllocator<>::alloc`): the slabs of async frames each user's task keeps while it
# thinks (bench/async-frames.py gives each function's frame). Memory, not time: the machine's
# load does not change the figures, so there is no load guard or alternation.
#
#   bench/task-memory.sh [-u USERS] [FLEET_BIN]   (default 5,000 users; takes about 40 s)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
users=5000
[ "${1:-}" = -u ] && { users=$2; shift 2; }
fleet=${1:-$root/.build/release/fleet}
command -v heaptrack >/dev/null || apt-get -o DPkg::Lock::Timeout=300 install -y -qq heaptrack >/dev/null
work=$(mktemp -d /tmp/fleet-taskmem.XXXXXX)
BENCH_ROOT=$root
# shellcheck source=bench/lib.sh
source "$root/bench/lib.sh"
bench_thinking_profile task-memory "$users" 5 \
    '"checks": { "enabled": false }, "stack": { "newUserEntitlement": "active", "workers": 2 },' > "$work/profile.json"
(cd "$root" && timeout 300 heaptrack -o "$work/heap" "$fleet" run --profile "$work/profile.json" --out "$work/out" \
    --history "$work/h.sqlite" > "$work/run.out" 2>&1) || { echo "run failed (see $work/run.out)" >&2; exit 1; }
demangle=$(command -v swift-demangle || echo cat)
heaptrack_print "$work"/heap.*zst --print-peaks 1 --print-allocators 0 --print-temporary 0 --print-leaks 0 -n 6 2>/dev/null \
    | "$demangle" --simplified > "$work/peaks.txt"
python3 - "$work/peaks.txt" "$users" <<'PY'
import re, sys
text, users = open(sys.argv[1]).read(), int(sys.argv[2])
unit = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
def size(s):
    m = re.match(r"([\d.]+)([KMG]?)", s)
    return float(m.group(1)) * unit[m.group(2)]
lines = text.splitlines()
for i, l in enumerate(lines):
    m = re.match(r"^([\d.]+[KMG]?) peak memory consumed over (\d+) calls from", l)
    if m:
        where = lines[i + 1].strip() if i + 1 < len(lines) else "?"
        print(f"{m.group(1):>8}  {size(m.group(1)) / users:8.0f} B per user  {where[:90]}")
        for j in range(i + 2, min(i + 40, len(lines))):
            n = re.match(r"^([\d.]+[KMG]?) consumed over (\d+) calls from:", lines[j])
            if n:
                callee = lines[j + 1].strip()[:100] if j + 1 < len(lines) else "?"
                print(f"          {size(n.group(1)) / int(n.group(2)):8.0f} B a call × {n.group(2):>6}  {callee}")
            elif re.match(r"^[\d.]+[KMG]? peak memory", lines[j]):
                break
PY
echo "(full report: $work/peaks.txt)" >&2
