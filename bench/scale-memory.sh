#!/usr/bin/env bash
# bench/scale-memory.sh — resident memory per thinking virtual user at 1,000, 10,000 and 50,000
# users walking the daily quest against the embedded reference stack (a child process, so only
# the bench's own memory is counted). Writes bench/RESULTS.md section "scale-memory".
# The goal (issue 8): ≤ 32 KiB of resident memory per thinking user at 50,000 users.
#
# Each size is a constant population ramped in at ~700 users/s, then held for HOLD seconds while
# every user thinks (10-minute think times, so nobody finishes); the figure is the largest RSS
# the run's own health samples saw (results.json), per user and as the slope between sizes.
#
#   bench/scale-memory.sh [-u "1000 10000 50000"] [--hold SECONDS]    (env FLEET_BIN)
set -euo pipefail
# shellcheck source=bench/peers.sh
source "$(dirname "$0")/peers.sh"

sizes="1000 10000 50000" hold=15
while [ $# -gt 0 ]; do
    case "$1" in
        -u) sizes=$2; shift 2 ;;
        --hold) hold=$2; shift 2 ;;
        *) echo "usage: bench/scale-memory.sh [-u \"1000 10000 50000\"] [--hold SECONDS]" >&2; exit 2 ;;
    esac
done
ulimit -n 20000 2>/dev/null || true
fleet=$(bench_fleet_bin)
work=$(mktemp -d /tmp/fleet-memory.XXXXXX)
load_before=$(cut -d' ' -f1-3 /proc/loadavg)

for n in $sizes; do
    ramp=$(( (n + 699) / 700 ))
    duration=$(( ramp + hold ))
    cat > "$work/mem-$n.json" <<JSON
{
  "name": "memory-$n",
  "description": "bench/scale-memory.sh: $n thinking users",
  "seed": 7,
  "duration_s": $duration,
  "grace_s": 0,
  "window_s": 1,
  "max_lag_ms": 60000,
  "stack": { "newUserEntitlement": "active", "workers": 2 },
  "client": { "app_version": "1.4.0", "request_timeout_s": 30 },
  "corpus": { "dir": "$BENCH_ROOT/audio-corpus", "clip_mix": { "speech": 1.0 } },
  "think_times": { "default": { "type": "constant", "ms": 600000 } },
  "scenarios": [
    {
      "name": "thinking",
      "model": { "type": "constant-population", "users": $n, "duration_s": $duration, "ramp_s": $ramp },
      "journeys": { "dailyQuest": 1 },
      "cohorts": { "new": 1 }
    }
  ]
}
JSON
    echo "== $n users (ramp ${ramp}s, hold ${hold}s)" >&2
    # Each output line gets its arrival time, so the exit's lag behind the planned end (start
    # line + duration) can be read off: a 50,000-user run once took over 120 s to exit.
    (cd "$BENCH_ROOT" && set -o pipefail && timeout $((duration + 120)) "$fleet" run --profile "$work/mem-$n.json" --out "$work/out-$n" 2>&1 \
        | while IFS= read -r line; do printf '%s %s\n' "$(date +%s.%N)" "$line"; done > "$work/run-$n.log") \
        || echo "   (run for $n exited $?; see $work/run-$n.log)" >&2
    echo "$n $(date +%s.%N) $duration" >> "$work/exits"
done

section="$work/section.md"
{
    echo "## Scale: resident memory per thinking virtual user"
    echo
    echo "Measured $(date -u '+%Y-%m-%d %H:%M UTC') on $(bench_machine) by \`bench/scale-memory.sh -u \"$sizes\" --hold $hold\`"
    echo "(daily quest, new users: sign-in, config, home, then a 10-minute think; embedded stack in a child process, not"
    echo "counted; RSS = the largest of the bench process's own health samples in results.json while the"
    echo "whole population was alive)."
    echo "Exit after planned end = when the process exited minus (its \"run ...\" line + the planned duration); it"
    echo "includes writing results and the report. Before commit 10c7f76 a 50,000-user run spent over 120 s there"
    echo "(quadratic child removal in one task group of 50,000 user slots)."
    echo "Load average when the run started: $load_before (1/5/15 min)."
    echo
    python3 - "$work" $sizes <<'PY'
import glob, json, os, sys
work, sizes = sys.argv[1], [int(x) for x in sys.argv[2:]]
exits = {}
for line in open(os.path.join(work, "exits")):
    n, at, duration = line.split()
    started = next((float(l.split(" ", 1)[0]) for l in open(os.path.join(work, f"run-{n}.log"))
                    if l.split(" ", 1)[1].startswith("run ")), None)
    exits[int(n)] = float(at) - started - float(duration) if started else None
rows = []
for n in sizes:
    files = glob.glob(os.path.join(work, f"out-{n}", "**", "results.json"), recursive=True)
    if not files:
        rows.append((n, None, None, "no results.json")); continue
    r = json.load(open(files[0]))
    health = r.get("health", [])
    peak = max((h.get("activeUsers", 0) for h in health), default=0)
    # Only samples with the whole population alive and thinking: not the ramp, not the teardown.
    held = [h["rssBytes"] for h in health if h.get("activeUsers", 0) == peak and h.get("rssBytes")]
    notes = "; ".join(r.get("meta", {}).get("notes", [])) or "ok"
    rows.append((n, max(held) if held else None, peak, notes))
print("| users | peak active users | bench RSS MiB (population held) | KiB per user (RSS / users) | KiB per added user (slope from the smallest) | exit after planned end s | run notes |")
print("|---:|---:|---:|---:|---:|---:|---|")
base = next(((n, rss) for n, rss, _, _ in rows if rss), None)
for n, rss, active, notes in rows:
    f = lambda v, fmt: (fmt % v) if v is not None else "n/a"
    per = rss / 1024 / n if rss else None
    slope = (rss - base[1]) / 1024 / (n - base[0]) if rss and base and n > base[0] else None
    print(f"| {n} | {f(active, '%d')} | {f(rss / 1048576 if rss else None, '%.1f')} | {f(per, '%.1f')} | {f(slope, '%.1f')} | {f(exits.get(n), '%.1f')} | {notes} |")
PY
} > "$section"
cat "$section"
bench_write_section scale-memory "$section"
echo "wrote bench/RESULTS.md (section scale-memory); raw outputs in $work" >&2
