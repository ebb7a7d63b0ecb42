#!/usr/bin/env bash
# bench/cpu-ab.sh — did a change move the journeys' CPU per request? Two fleet binaries walk the
# same 64-user daily quest as bench/overhead.sh (no think time, `fleet stack --median-ms 20`),
# alternated A B, B A, A B, … so that neither holds the first or the second place of every pair
# (overhead.sh's arms run in a fixed order). CPU per request is overhead.sh's: the bench process's
# CPU from the health sample before the first active window to the last active one, over the
# requests. The figure: B / A per pair, median (min–max), and each binary's median.
#
# Why a script of its own: on this KVM host a run's CPU per request moves ±10 % between
# invocations, and overhead.sh's three rounds, each binary always in the same slot, read a 4.5 %
# cut in instructions (callgrind) as an 11–14 % slowdown in both role orders, where 18 alternated
# pairs read 1.03 × (0.84–1.18): a few percent needs many pairs and both orders.
#
#   bench/cpu-ab.sh BIN_A BIN_B [-u USERS] [-d SECONDS] [--loaded-ok]   (defaults 64 users, 15 s;
#       env PAIRS (default 6), LOAD_MAX, LOAD_WAIT). Takes about PAIRS × 2 × (SECONDS + 5) s: 4 min.
set -euo pipefail
pairs=${PAIRS:-6}  # lib.sh defaults PAIRS to 3; a few percent needs more
# shellcheck source=bench/peers.sh
source "$(dirname "$0")/peers.sh"
PAIRS=$pairs

[ $# -ge 2 ] || { echo "usage: bench/cpu-ab.sh BIN_A BIN_B [-u USERS] [-d SECONDS] [--loaded-ok]" >&2; exit 2; }
A=$1 B=$2; shift 2
for bin in "$A" "$B"; do [ -x "$bin" ] || { echo "bench/cpu-ab.sh: $bin: not an executable fleet binary" >&2; exit 2; }; done
users=64 duration=15
while [ $# -gt 0 ]; do
    case "$1" in
        -u) users=$2; shift 2 ;;
        -d) duration=$2; shift 2 ;;
        --loaded-ok) LOADED_OK=1; shift ;;
        *) echo "usage: bench/cpu-ab.sh BIN_A BIN_B [-u USERS] [-d SECONDS] [--loaded-ok]" >&2; exit 2 ;;
    esac
done
ulimit -n 20000 2>/dev/null || true
bench_load_guard cpu-ab || exit 3
work=$(mktemp -d /tmp/fleet-cpu-ab.XXXXXX)
BENCH_LOADLOG="$work/load.log"
bench_stack_start "$A" "$work/stack.out" --entitlement active --workers 16 --median-ms 20 --sigma 0 --rate-limit 0 || exit 1
url=$BENCH_STACK_URL
# No end-of-run audit: CPU per request of the walk itself (as bench/overhead.sh).
bench_quest_profile overhead 3 "$duration" "$users" 5 '"checks": {"audit_s": 0, "audit_max_s": 0},' > "$work/run.json"

run_one() {  # $1 = A|B, $2 = round; a seed of its own per run (the stack keeps each install's quest)
    local x=$1 r=$2 bin=$A seed=$((7000 + 10 * $2))
    [ "$x" = B ] && bin=$B seed=$((seed + 1))
    sed "s/\"seed\": 3,/\"seed\": $seed,/" "$work/run.json" > "$work/run.$x.$r.json"
    # Each binary keeps its own corpus check cache (binaries that stamp clips otherwise would
    # make each other re-check all of them).
    FLEET_CACHE_DIR="$work/cache-$x" timeout $((duration + 60)) "$bin" run --profile "$work/run.$x.$r.json" --target "$url" --out "$work/$x-$r" \
        --history "$work/h.sqlite" > "$work/$x.$r.out" 2>&1 || echo "   ($x round $r exited $?; see $work/$x.$r.out)" >&2
}
bench_alternate_swapped cpu-ab run_one

section="$work/section.md"
{
    echo "## CPU per request, two binaries alternated: the journeys (bench/cpu-ab.sh)"
    echo
    echo "Measured $(date -u '+%Y-%m-%d %H:%M') UTC on $(bench_machine) by \`bench/cpu-ab.sh A B -u $users -d $duration\` (PAIRS=$PAIRS)"
    echo "($users users walk the daily quest with no think time against \`fleet stack --median-ms 20\`; the order alternates"
    echo "A B, B A, …; CPU per request of the bench process over its active windows, as bench/overhead.sh computes it.)"
    echo "A = \`$A\`, B = \`$B\`."
    bench_load_summary "$BENCH_LOADLOG"
    echo
    python3 - "$work" "$PAIRS" <<'PY'
import glob, json, os, statistics, sys
sys.path.insert(0, os.path.join(os.environ["BENCH_ROOT"], "bench"))
from run_cpu import how_line, walking_cpu_start
work, pairs = sys.argv[1], int(sys.argv[2])
hows = []
def per_request(x, r, estimate=False):
    f = glob.glob(os.path.join(work, f"{x}-{r}", "**", "results.json"), recursive=True)
    if not f: return None
    res = json.load(open(f[0])); h = sorted(res["health"], key=lambda s: s["window"])
    act = [i for i, s in enumerate(h) if s.get("activeUsers", 0) > 0]
    n = sum(sum(e["statuses"].values()) for e in res["endpoints"])
    if not act or not n: return None
    c0, how = walking_cpu_start(res, h, act[0], estimate)
    hows.append(how)
    return (h[-1]["cpuSeconds"] - c0) / n * 1e6  # to the sample taken when the walk ended (overhead.sh)
rows = [(r, per_request("A", r), per_request("B", r)) for r in range(1, pairs + 1)]
if "estimated" in hows:
    # An older binary without meta.startCpuSeconds: both taken alike, by the estimate.
    hows = []
    rows = [(r, per_request("A", r, True), per_request("B", r, True)) for r in range(1, pairs + 1)]
def spread(v, fmt):
    return f"{fmt % statistics.median(v)} ({fmt % min(v)}–{fmt % max(v)})" if v else "n/a"
print("| round | order | A µs per request | B µs per request | B / A |")
print("|---:|---|---:|---:|---:|")
for r, a, b in rows:
    ratio = f"{b / a:.3f}" if a and b else "n/a"
    print(f"| {r} | {'A B' if r % 2 else 'B A'} | {a:.1f} | {b:.1f} | {ratio} |" if a and b else f"| {r} | | {a} | {b} | n/a |")
ratios = [b / a for _, a, b in rows if a and b]
print()
print(f"A: {spread([a for _, a, _ in rows if a], '%.1f')} µs per request; B: {spread([b for _, _, b in rows if b], '%.1f')}.")
print(f"B / A per pair: {spread(ratios, '%.3f')} × over {len(ratios)} pairs.")
print(how_line(hows))
PY
} > "$section"
cat "$section"
bench_write_section cpu-ab "$section"
echo "wrote bench/RESULTS.md (section cpu-ab); raw outputs in $work" >&2
