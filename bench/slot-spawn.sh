#!/usr/bin/env bash
# bench/slot-spawn.sh — what a scenario starting mid-run does to the users already walking.
#
# A closed model (constant or ramping population) starts one task per slot when its scenario
# starts, even when its ramp lets the slots' users in over minutes: each slot sleeps until its
# turn. In bench/scale-memory.sh's active phase, 20,000 slots spawned in one go at 258 s raised
# the walking users' scheduling lag p99 to 60 ms in that window. This bench isolates it:
#
# - "walkers": WALKERS users walking freePractice with 1–3 s thinks from 0 s (the users whose lag
#   is read), against a `fleet stack` process of its own (not counted);
# - "late": SLOTS daily-quest users (checks off) whose scenario starts at START s with a ramp of
#   SLOTS / 100 s (so that ~100 users a second actually begin: the stack is not the story), all
#   their slots spawned at START.
# The figure: scheduling_lag p99 of the window in which the late scenario starts and the next
# one (max of the two), against the median p99 of the windows before it; before/after binaries
# alternated (--before BIN), PAIRS rounds.
#
#   bench/slot-spawn.sh [--slots N] [--walkers N] [--before FLEET_BIN] [--loaded-ok]
#       (defaults 20000 slots, 300 walkers; env FLEET_BIN, PAIRS, LOAD_MAX, LOAD_WAIT). About 40 s a run.
set -euo pipefail
# shellcheck source=bench/peers.sh
source "$(dirname "$0")/peers.sh"

slots=20000 walkers=300 before="" start=12 duration=24
while [ $# -gt 0 ]; do
    case "$1" in
        --slots) slots=$2; shift 2 ;;
        --walkers) walkers=$2; shift 2 ;;
        --before) before=$2; shift 2 ;;
        --loaded-ok) LOADED_OK=1; shift ;;
        *) echo "usage: bench/slot-spawn.sh [--slots N] [--walkers N] [--before FLEET_BIN] [--loaded-ok]" >&2; exit 2 ;;
    esac
done
ulimit -n 20000 2>/dev/null || true
fleet=$(bench_fleet_bin)
work=$(mktemp -d /tmp/fleet-slot-spawn.XXXXXX)
BENCH_LOADLOG="$work/load.log"
bench_load_guard slot-spawn || exit 3

cat > "$work/profile.json" <<JSON
{
  "name": "slot-spawn", "seed": 7, "duration_s": $duration, "grace_s": 0, "window_s": 1, "max_lag_ms": 60000,
  "checks": { "enabled": false },
  "client": { "app_version": "1.4.0", "request_timeout_s": 30 },
  "corpus": { "dir": "$BENCH_ROOT/audio-corpus", "clip_mix": { "speech": 1.0 } },
  "think_times": { "default": { "type": "uniform", "min_ms": 1000, "max_ms": 3000 }, "home": { "type": "constant", "ms": 600000 } },
  "scenarios": [
    { "name": "walkers", "model": { "type": "constant-population", "users": $walkers, "duration_s": $duration, "ramp_s": 3 },
      "journeys": { "freePractice": 1 }, "cohorts": { "new": 1 } },
    { "name": "late", "start_s": $start,
      "model": { "type": "constant-population", "users": $slots, "duration_s": $((slots / 100)), "ramp_s": $((slots / 100)) },
      "journeys": { "dailyQuest": 1 }, "cohorts": { "new": 1 } }
  ]
}
JSON

one() {  # $1 = binary, $2 = tag
    bench_stack_start "$1" "$work/stack-$2.out" --entitlement active --workers 64 || return 1
    bench_steal_start
    (cd "$BENCH_ROOT" && timeout $((duration + 120)) "$1" run --profile "$work/profile.json" --target "$BENCH_STACK_URL" \
        --out "$work/out-$2" --history "$work/h.sqlite" > "$work/run-$2.log" 2>&1) || echo "   (run $2 exited $?)" >&2
    bench_steal_stop > "$work/steal-$2"
    kill "$BENCH_STACK_PID" 2>/dev/null; wait "$BENCH_STACK_PID" 2>/dev/null || true
}
after() { one "$fleet" "after-$1"; }
before_run() { one "$before" "before-$1"; }
if [ -n "$before" ]; then bench_alternate slot-spawn before_run after; else bench_alternate slot-spawn after; fi

section="$work/section.md"
{
    echo "## Slot spawning: the lag a scenario's start gives the users already walking"
    echo
    echo "Measured $(date -u '+%Y-%m-%d %H:%M UTC') on $(bench_machine) by \`bench/slot-spawn.sh --slots $slots --walkers $walkers${before:+ --before BIN}\`"
    echo "($walkers users walk freePractice with 1–3 s thinks from 0 s; at ${start} s a second scenario of $slots daily-quest"
    echo "users starts, ramped over $((slots / 100)) s, so all its slots are spawned at ${start} s while ~100 users a second begin;"
    echo "checks off; a \`fleet stack\` process of its own, not counted. Lag = scheduling_lag p99 of timeline.csv: the"
    echo "larger of the windows at ${start} s and $((start + 1)) s, against the median of windows 4–$((start - 1)) s. $PAIRS rounds, alternated.)"
    bench_load_summary
    [ "$BENCH_LOADED" = 1 ] && echo "**Loaded: taken while other work shared the machine; provisional, not the figure.**"
    echo
    python3 - "$work" "$start" <<'PY'
import csv, glob, os, statistics, sys
work, start = sys.argv[1], int(sys.argv[2])
rows = {}
for d in sorted(glob.glob(os.path.join(work, "out-*"))):
    tag = os.path.basename(d)[4:]
    binary, rnd = tag.rsplit("-", 1)
    tl = glob.glob(os.path.join(d, "**", "timeline.csv"), recursive=True)
    if not tl:
        rows.setdefault(binary, []).append((rnd, None, None, "no timeline")); continue
    lag = {}
    for r in csv.DictReader(open(tl[0])):
        if r["metric"] == "scheduling_lag" and r["p99_ms"]:
            lag[int(float(r["window_start_s"]))] = float(r["p99_ms"])
    # A window with no lag sample is missing, not zero: the round reads n/a then.
    seen = [lag[s] for s in (start, start + 1) if s in lag]
    spawn = max(seen) if seen else None
    calm = [lag[s] for s in range(4, start) if s in lag]
    steal = open(os.path.join(work, f"steal-{tag}")).read().split()[0]
    rows.setdefault(binary, []).append((rnd, spawn, statistics.median(calm) if calm else None, steal))
print("| binary | lag p99 ms at the start, per round | median | lag p99 ms before it (median of windows), per round | host steal s per round |")
print("|---|---|---:|---|---|")
f = lambda v: "n/a" if v is None else f"{v:.1f}"
for binary in ("before", "after"):
    if binary not in rows: continue
    rs = sorted(rows[binary])
    spawn = [r[1] for r in rs if r[1] is not None]
    print(f"| {binary} | {' / '.join(f(r[1]) for r in rs)} | {f(statistics.median(spawn) if spawn else None)} | "
          f"{' / '.join(f(r[2]) for r in rs)} | {' / '.join(r[3] for r in rs)} |")
PY
} > "$section"
cat "$section"
bench_write_section slot-spawn "$section"
echo "wrote bench/RESULTS.md (section slot-spawn); raw outputs in $work" >&2
