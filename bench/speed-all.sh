#!/usr/bin/env bash
# bench/speed-all.sh — every final measurement of issue 18, in order, each bounded, writing its
# bench/RESULTS.md section: one command for a quiet window.
#
#   1. bench/peers.sh -d 10            requests per client CPU-second beside wrk, h2load, hey, Locust,
#                                      raw libcurl (C) and fleet blast, alternated     ~4 min
#   2. bench/peers-journey.sh          CPU per completed daily quest, Fleet against Locust  ~5 min
#   3. bench/overhead.sh               the journey layer over the bare engine, with perf   ~3 min
#   4. bench/engine-levers.sh          each engine lever off in turn, beside wrk          ~4 min
#   5. bench/scale-memory.sh           200,000 users thinking, then 10 % of them active  ~14 min
#                                      (2 × 286 s ramp at 700 users/s + 30 s held + the end-of-run audit)
#   6. bench/startup.sh                launch to first arrival, corpus cache cold/warm    ~1 min
# Total about 30 min (PAIRS=3), plus up to LOAD_WAIT per step while the previous step's load decays.
# bench/RESULTS.md's "issue18" summary at the top quotes the provisional figures: update it by hand
# from the rewritten sections afterwards. It builds the release binary once (or uses FLEET_BIN), checks the
# load average before each step (bench/lib.sh: LOAD_MAX, default 0.5; LOAD_WAIT, default 120 s
# here, waits for a busy machine to settle; LOADED_OK=1 runs anyway and marks rows loaded) and
# goes on to the next step when one fails, listing the failures at the end (exit 1 then).
#
#   bench/speed-all.sh [--loaded-ok] [--only "peers overhead …"] [--before OLD_FLEET_BIN]
#       (--before adds the old binary's journeys to the overhead alternation: before/after a fix)
set -uo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=bench/lib.sh
source bench/lib.sh
export PATH="$PATH:/opt/swift/usr/bin"
export PAIRS LOAD_MAX
export LOAD_WAIT=${LOAD_WAIT:-120}
only="peers peers-journey overhead engine-levers scale-memory startup" before=""
while [ $# -gt 0 ]; do
    case "$1" in
        --loaded-ok) export LOADED_OK=1; shift ;;
        --only) only=$2; shift 2 ;;
        --before) before=$2; shift 2 ;;
        *) echo "usage: bench/speed-all.sh [--loaded-ok] [--only \"peers peers-journey overhead engine-levers scale-memory startup\"] [--before OLD_FLEET_BIN]" >&2; exit 2 ;;
    esac
done
if [ -z "${FLEET_BIN:-}" ]; then
    swift build -c release --product fleet >&2 || { echo "release build failed" >&2; exit 1; }
    FLEET_BIN="$PWD/.build/release/fleet"
fi
export FLEET_BIN
started=$(date +%s)
failed=()
step() {  # $1 = name, $2 = time bound in seconds, rest = command
    local name=$1 bound=$2; shift 2
    case " $only " in *" $name "*) ;; *) return 0 ;; esac
    echo "#### $name ($(date -u +%H:%M:%S), bound ${bound}s): $*" >&2
    local t0; t0=$(date +%s)
    timeout --foreground "$bound" "$@" > "/tmp/speed-all.$name.log" 2>&1
    local rc=$?
    echo "#### $name: exit $rc after $(( $(date +%s) - t0 )) s (log /tmp/speed-all.$name.log)" >&2
    [ "$rc" = 0 ] || failed+=("$name (exit $rc)")
}
step peers 420 bash bench/peers.sh -d 10
step peers-journey 600 bash bench/peers-journey.sh
if [ -n "$before" ]; then
    step overhead 420 bash bench/overhead.sh --before "$before"
else
    step overhead 300 bash bench/overhead.sh
fi
step engine-levers 420 bash bench/engine-levers.sh
# Checks off: the generator alone, as the 14.5 KiB baseline was measured (before the checker existed);
# with checks on, each user also keeps its checker history and trace ring, and the audit runs after the end.
step scale-memory 1200 bash bench/scale-memory.sh --checks off
# startup.sh prints its table; this wraps it into the "startup" section.
step startup 180 bash -c 'set -eo pipefail; source bench/peers.sh; out=$(mktemp)
    bash bench/startup.sh "$FLEET_BIN" "$PAIRS" | tee "$out.table"
    { echo "## Start-up: launch to the first arrival, corpus check cache cold and warm (issue 18, item 5)"; echo
      echo "Measured $(date -u "+%Y-%m-%d %H:%M UTC") by \`bench/startup.sh FLEET_BIN $PAIRS\` (cold and warm cache alternated; replaces the 2026-12-01 20:40 table)."
      echo; cat "$out.table"; } > "$out"
    bench_write_section startup "$out"'
echo "speed-all: $(( ($(date +%s) - started) / 60 )) min; sections written to bench/RESULTS.md" >&2
if [ ${#failed[@]} -gt 0 ]; then
    echo "failed: ${failed[*]}" >&2
    exit 1
fi
