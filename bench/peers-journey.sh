#!/usr/bin/env bash
# bench/peers-journey.sh — generator CPU per completed daily quest: Fleet's `dailyQuest` against
# the same quest written for Locust (bench/locust/dailyquest.py, FastHttpUser), each driving the
# same users against one `fleet stack` on loopback (its own process, not counted), think times
# and recording pauses equal. Alternated Fleet Locust Fleet Locust … (PAIRS rounds).
#
# The figure: the generator's CPU seconds (user + system) from the first arrival to the last
# completed quest, per completed quest. Start-up (process launch to the first arrival: imports,
# corpus load and check) is reported on its own.
#   - Fleet: from its own health samples (results.json, 1-s windows, cumulative process CPU):
#     from when the users began (the sample before the first window with an active user, or
#     meta.startCpuSeconds when that window is the first: bench/run_cpu.py) to the first sample
#     after the last window with one. Start-up = the CPU when the users began.
#   - Locust: the locustfile reads getrusage(RUSAGE_SELF) at the first arrival and at the last
#     completion (single process, no workers). Start-up = the CPU at the first arrival.
# Goal (issue 18): Fleet at least 10 × cheaper per quest.
#
#   bench/peers-journey.sh [-u USERS] [--ramp S] [--think MS] [--scale X] [--loaded-ok]
#       (defaults 200 users over 10 s, 2,000 ms thinks, time scale 0.1 on thinks and recording;
#        env PAIRS=3, LOAD_MAX, LOAD_WAIT, FLEET_BIN). Takes about PAIRS × 2 × 45 s: 5 min.
set -euo pipefail
# shellcheck source=bench/peers.sh
source "$(dirname "$0")/peers.sh"

users=200 ramp=10 think=2000 scale=0.1
while [ $# -gt 0 ]; do
    case "$1" in
        -u) users=$2; shift 2 ;;
        --ramp) ramp=$2; shift 2 ;;
        --think) think=$2; shift 2 ;;
        --scale) scale=$2; shift 2 ;;
        --loaded-ok) LOADED_OK=1; shift ;;
        *) echo "usage: bench/peers-journey.sh [-u USERS] [--ramp S] [--think MS] [--scale X] [--loaded-ok]" >&2; exit 2 ;;
    esac
done
ulimit -n 20000 2>/dev/null || true
bench_install locust
fleet=$(bench_fleet_bin)
bench_load_guard peers-journey || exit 3
work=$(mktemp -d /tmp/fleet-pj.XXXXXX)
BENCH_LOADLOG="$work/load.log"
limit=300

# One stack for every run: each user signs in anew, so runs do not see each other's state.
bench_stack_start "$fleet" "$work/stack.out" --entitlement active --workers 16 --median-ms 400 --sigma 0.4 --rate-limit 0 || exit 1
url=$BENCH_STACK_URL stack=$BENCH_STACK_PID

# Fleet's checks stay on, but not its end-of-run audit (two reads a user after the last quest, outside
# the measured span by its definition, yet inside it when the audit ended within the sample's second:
# until 2026-12-07 it was, and its 400 requests were in the requests per quest, 19.2 against Locust's 17.2).
bench_once_quest_profile peers-journey "$users" "$ramp" "$think" "$scale" "$limit" \
    | python3 -c 'import json, sys; p = json.load(sys.stdin); p["checks"] = {"audit_s": 0, "audit_max_s": 0}; json.dump(p, sys.stdout, indent=1)' \
    > "$work/quest.json"

run_fleet() {
    local r=$1
    # A seed of its own per round: the same seed would sign the same installs in again, whose
    # quest of the day the stack already holds as done (a short, cheap walk).
    sed "s/\"seed\": 7,/\"seed\": $((100 + r)),/" "$work/quest.json" > "$work/quest.$r.json"
    (cd "$BENCH_ROOT" && timeout $((limit + 60)) /usr/bin/time -f '%U %S %e' -o "$work/fleet.$r.time" \
        "$fleet" run --profile "$work/quest.$r.json" --target "$url" --out "$work/fleet-$r" --history "$work/h.sqlite" \
        > "$work/fleet.$r.out" 2>&1) || echo "   (fleet run $r exited $?; see $work/fleet.$r.out)" >&2
}

run_locust() {
    local r=$1
    (cd "$BENCH_ROOT" && QUEST_USERS=$users QUEST_THINK_MS=$(awk -v t="$think" -v s="$scale" 'BEGIN { print t * s }') \
        QUEST_TIME_SCALE=$scale QUEST_CORPUS="$BENCH_ROOT/audio-corpus" QUEST_OUT="$work/locust.$r.json" QUEST_SEED=$r \
        timeout $((limit + 60)) /usr/bin/time -f '%U %S %e' -o "$work/locust.$r.time" \
        locust -f bench/locust/dailyquest.py --headless -u "$users" -r "$(awk -v u="$users" -v s="$ramp" 'BEGIN { print u / s }')" \
        -t "${limit}s" --host "$url" --csv "$work/locust.$r" --only-summary --loglevel WARNING \
        > "$work/locust.$r.out" 2>&1) || echo "   (locust $r exited $?; see $work/locust.$r.out)" >&2
}

bench_alternate peers-journey run_fleet run_locust

section="$work/section.md"
{
    echo "## Peers: generator CPU per completed daily quest (Fleet against Locust)"
    echo
    echo "Measured $(date -u '+%Y-%m-%d %H:%M UTC') on $(bench_machine) by \`bench/peers-journey.sh -u $users --ramp $ramp --think $think --scale $scale\` (PAIRS=$PAIRS)"
    echo "($users users each walk the daily quest once, arriving over ${ramp} s, against one \`fleet stack --entitlement active"
    echo "--workers 16 --median-ms 400\` on loopback (its own process, not counted); every think ${think} ms × $scale, recording"
    echo "pauses the clip's length × $scale; Fleet = \`fleet run\` with a dailyQuest-only profile, checks on as by default (its end-of-run audit off);"
    echo "Locust = bench/locust/dailyquest.py, one process. CPU = the generator's user + system seconds from the first"
    echo "arrival to the last completed quest; start-up = launch to the first arrival; median of $PAIRS alternated rounds (min–max).)"
    bench_load_summary
    [ "$BENCH_LOADED" = 1 ] && echo "**Loaded: taken while other work shared the machine; provisional, not the figure.**"
    echo "New figure (no earlier one measured a journey's CPU; issue 18 item 2)."
    echo
    python3 - "$work" "$PAIRS" "$users" <<'PY'
import glob, json, os, statistics, sys
sys.path.insert(0, os.path.join(os.environ["BENCH_ROOT"], "bench"))
from run_cpu import how_line, walking_cpu_start
work, pairs, users = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
hows = []

def fleet(r):
    files = glob.glob(os.path.join(work, f"fleet-{r}", "**", "results.json"), recursive=True)
    if not files: return None
    res = json.load(open(files[0]))
    h = sorted(res.get("health", []), key=lambda s: s["window"])
    busy = [i for i, s in enumerate(h) if s.get("activeUsers", 0) > 0]
    if not busy: return None
    first, last = busy[0], busy[-1]
    start_cpu, how = walking_cpu_start(res, h, first)
    hows.append(how)
    end_cpu = h[min(last + 1, len(h) - 1)]["cpuSeconds"]
    done = sum(j.get("completed", 0) for j in res.get("journeys", []) if j.get("journey") == "dailyQuest")
    failed = sum(j.get("failed", 0) + j.get("abandoned", 0) for j in res.get("journeys", []) if j.get("journey") == "dailyQuest")
    reqs = sum(sum(e.get("statuses", {}).values()) for e in res.get("endpoints", []))
    return dict(cpu=end_cpu - start_cpu, startup=start_cpu, done=done, failed=failed, span=last - first + 1, requests=reqs)

def locust(r):
    p = os.path.join(work, f"locust.{r}.json")
    if not os.path.exists(p): return None
    s = json.load(open(p))
    if not s.get("first") or not s.get("last"): return None
    reqs = None
    csvp = os.path.join(work, f"locust.{r}_stats.csv")
    if os.path.exists(csvp):
        import csv
        for row in csv.DictReader(open(csvp)):
            if row.get("Name") == "Aggregated": reqs = int(row["Request Count"])
    return dict(cpu=s["last"]["cpu"] - s["first"]["cpu"], startup=s["first"]["cpu"], done=s["done"], failed=s["failed"],
                span=s["last"]["t"] - s["first"]["t"], requests=reqs)

def spread(v, fmt):
    v = sorted(x for x in v if x is not None)
    return f"{fmt % statistics.median(v)} ({fmt % v[0]}–{fmt % v[-1]})" if v else "n/a"

rows = {"Fleet (fleet run, dailyQuest)": [fleet(r) for r in range(1, pairs + 1)],
        "Locust (FastHttpUser, dailyquest.py)": [locust(r) for r in range(1, pairs + 1)]}
per = {k: [x["cpu"] / x["done"] * 1000 if x and x["done"] else None for x in v] for k, v in rows.items()}
print("| generator | quests completed / failed (per round) | requests per quest | CPU ms per completed quest, median (min–max) | CPU µs per request | start-up CPU s | first arrival → last completion s |")
print("|---|---|---:|---:|---:|---:|---:|")
for k, v in rows.items():
    counts = ", ".join(f"{x['done']}/{x['failed']}" if x else "n/a" for x in v)
    perreq = [x["cpu"] / x["requests"] * 1e6 if x and x.get("requests") else None for x in v]
    rq = [x["requests"] / x["done"] if x and x.get("requests") and x["done"] else None for x in v]
    print(f"| {k} | {counts} | {spread(rq, '%.1f')} | {spread(per[k], '%.2f')} | {spread(perreq, '%.0f')} | {spread([x['startup'] if x else None for x in v], '%.2f')} | {spread([x['span'] if x else None for x in v], '%.0f')} |")
f, l = per["Fleet (fleet run, dailyQuest)"], per["Locust (FastHttpUser, dailyquest.py)"]
ratios = [b / a for a, b in zip(f, l) if a and b]
print()
print(f"Locust CPU per quest / Fleet CPU per quest, per round: median {spread(ratios, '%.1f')} × (goal: ≥ 10 ×; "
      f"{'met' if ratios and statistics.median(ratios) >= 10 else 'not met'}).")
print(how_line(hows))
PY
} > "$section"
cat "$section"
bench_write_section peers-journey "$section"
echo "wrote bench/RESULTS.md (section peers-journey); raw outputs in $work" >&2
