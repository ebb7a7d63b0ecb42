#!/usr/bin/env bash
# bench/task-slabs.sh — where a thinking user's task allocator memory goes, frame by frame: the
# swift_task_alloc/dealloc sequence of a slot's task (LD_PRELOAD recorder, bench/task_slabs.c)
# over a short run of USERS daily-quest users who sign in, read home and think, laid out as the
# runtime's slabs lay it (bench/task_slabs.py). heaptrack (bench/task-memory.sh) gives the bytes
# held; this gives which frame opened which slab and how much each slab left empty.
# Memory, not time: no load guard or alternation.
#
#   bench/task-slabs.sh [-u USERS] [FLEET_BIN]   (default 20 users; takes about 30 s)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
users=20
[ "${1:-}" = -u ] && { users=$2; shift 2; }
fleet=${1:-$root/.build/release/fleet}
BENCH_ROOT=$root
# shellcheck source=bench/lib.sh
source "$root/bench/lib.sh"
work=$(mktemp -d /tmp/fleet-taskslabs.XXXXXX)
gcc -O2 -shared -fPIC -o "$work/task_slabs.so" "$root/bench/task_slabs.c" -ldl
bench_thinking_profile task-slabs "$users" 3 "" > "$work/profile.json"
# The stack in a process of its own: its tasks would take the recorder's places.
bench_stack_start "$fleet" "$work/stack.out" --entitlement active --workers 64 || exit 1
(cd "$root" && TASK_SLABS_DIR=$work LD_PRELOAD=$work/task_slabs.so timeout 120 "$fleet" run --profile "$work/profile.json" \
    --target "$BENCH_STACK_URL" --out "$work/out" --history "$work/h.sqlite" > "$work/run.out" 2>&1) \
    || { echo "run failed (see $work/run.out)" >&2; exit 1; }
kill "$BENCH_STACK_PID" 2>/dev/null || true
# The first task that walked a user to a think.
for log in "$work"/task.[0-9]; do
    python3 "$root/bench/task_slabs.py" "$log" "$fleet" > "$log.slabs"
    if grep -q "VirtualUser.pause" "$log.slabs"; then cat "$log.slabs"; echo "(all tasks: $work)" >&2; exit 0; fi
done
echo "no task of the run reached a think (see $work)" >&2
exit 1
