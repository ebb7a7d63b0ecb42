#!/usr/bin/env bash
# bench/hostile.sh — the 200-user smoke run through scripts/hostile_proxy.py, which forwards every
# request to a real reference stack once and mangles a fraction of the answers (default a fifth;
# every kind of the proxy, on API routes and upload URLs). Issue 16's bar: the run ends within its
# bound, every mangled kind shows up as counted errors, ≥ 90 % of the journeys complete, the bench
# stays under 300 MB resident, and the proxy saw no malformed request. Writes bench/RESULTS.md
# section "hostile"; exits 1 when a bar is missed.
#
#   bench/hostile.sh [-f FRACTION] [-s SEED] [-n RUNS]   (defaults 0.2, 16 and 3; env FLEET_BIN)
#
# Each run gets a fresh stack and proxy; run i uses seed SEED+i for both the proxy and the fleet.
# The bars are judged per run; the table quotes every run and the medians.
set -euo pipefail
# shellcheck source=bench/peers.sh
source "$(dirname "$0")/peers.sh"

fraction=0.2 seed=16 runs=3
while [ $# -gt 0 ]; do
    case "$1" in
        -f) fraction=$2; shift 2 ;;
        -s) seed=$2; shift 2 ;;
        -n) runs=$2; shift 2 ;;
        *) echo "usage: bench/hostile.sh [-f FRACTION] [-s SEED] [-n RUNS]" >&2; exit 2 ;;
    esac
done
[ -x /usr/bin/time ] || bench_install
fleet=$(bench_fleet_bin)
work=$(mktemp -d /tmp/fleet-hostile.XXXXXX)
pids=()
cleanup() { for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done; }
trap cleanup EXIT

wait_ready() {  # file → the READY URL (10 s at most)
    local url=""
    for _ in $(seq 1 100); do url=$(awk '/^READY /{print $2}' "$1"); [ -n "$url" ] && break; sleep 0.1; done
    [ -n "$url" ] || { echo "bench/hostile.sh: $1 never said READY" >&2; cat "$1" >&2; exit 1; }
    echo "$url"
}

one_run() {  # dir, seed
    local dir=$1 s=$2
    mkdir -p "$dir"
    # The smoke profile's stack settings (entitlement active for the subscriber cohort).
    "$fleet" stack --port 0 --entitlement active --workers 16 --median-ms 400 --sigma 0.4 --duration 600 \
        > "$dir/stack.out" 2>&1 &
    local stack_pid=$!
    pids+=($stack_pid)
    local stack_url proxy_url
    stack_url=$(wait_ready "$dir/stack.out")
    python3 "$BENCH_ROOT/scripts/hostile_proxy.py" --upstream "$stack_url" --fraction "$fraction" --seed "$s" \
        --stats "$dir/proxy.json" --duration 600 > "$dir/proxy.out" 2> "$dir/proxy.err" &
    local proxy_pid=$!
    pids+=($proxy_pid)
    proxy_url=$(wait_ready "$dir/proxy.out")
    cut -d' ' -f1-3 /proc/loadavg > "$dir/load.txt"
    set +e
    /usr/bin/time -v -o "$dir/time.txt" timeout 240 "$fleet" run --profile "$BENCH_ROOT/profiles/hostile.json" \
        --seed "$s" --target "$proxy_url" --out "$dir/reports" --history "$dir/history.sqlite" > "$dir/run.out" 2>&1
    echo $? > "$dir/exit.txt"
    set -e
    sleep 1.5  # the proxy writes its counts every second
    kill -TERM "$proxy_pid" "$stack_pid" 2>/dev/null || true
    wait "$proxy_pid" "$stack_pid" 2>/dev/null || true
}

dirs=()
for i in $(seq 0 $((runs - 1))); do
    echo "== run $((i + 1)) of $runs (seed $((seed + i)))" >&2
    one_run "$work/run-$i" $((seed + i))
    dirs+=("$work/run-$i")
done

table="$work/section.md"
set +e
python3 "$BENCH_ROOT/bench/hostile_summary.py" "$fraction" "$seed" "$(bench_machine)" "${dirs[@]}" > "$table"
verdict=$?
set -e
cat "$table"
bench_write_section hostile "$table"
echo "wrote bench/RESULTS.md (section hostile); raw outputs in $work" >&2
exit $verdict
