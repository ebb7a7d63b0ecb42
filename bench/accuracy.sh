#!/usr/bin/env bash
# Accuracy shown, not claimed: three measurements of the bench against a stack whose latency we
# control, each printed with its verdict (exit 1 if any fails).
#
#   A. Fixed added latency. The reference stack adds exactly 50 ms (sigma 0) to GET /config.
#      `fleet blast -R 1000` measures that route through the fleet's own HTTP engine and Recorder
#      (the same code every virtual user's request goes through), latency from the intended send.
#      The truth it is compared with, two ways:
#        - wrk (an independent C client) on the same route with 50 connections: a closed loop at
#          50 ms per request is ~1,000 req/s, so it measures the same route at the same rate;
#        - the route without the fault, measured at the same rate, plus 50 ms: a constant delay
#          shifts every percentile by exactly that much.
#      Pass: |fleet − truth| <= 1 ms + 1 % of truth, for p50 and p99, against both truths.
#   B. A starved generator. `fleet run` with the profile hook "debug": {"stall_at_s": 6,
#      "stall_s": 1}, which busy-blocks every thread of the users' pool for 1 s. Pass: the
#      corrected p99 over all requests shows the stall (>= 500 ms, and well above the uncorrected
#      p99), `scheduling_lag` max >= 800 ms, and the run says the generator fell behind.
#   C. Poisson arrivals in a real run: constant-arrival-rate at λ = 20/s for 60 s; the users that
#      started (counter users_started:<scenario>) are within 3σ = 3·√(60λ) of 60λ.
#
# Usage: bench/accuracy.sh [A] [B] [C]    (default: all; env FLEET=path to a release build,
#        RATE=1000, SECONDS_A=20)
set -euo pipefail
cd "$(dirname "$0")/.."
FLEET=${FLEET:-.build/release/fleet}
RATE=${RATE:-1000}
SECONDS_A=${SECONDS_A:-20}
PARTS=${*:-A B C}
# On a shared machine other jobs' CPU bursts land in the tails (a neighbour's compiler preempts the
# stack's timer or a client's I/O thread for tens of ms). As root, part A runs the stack and both
# clients under SCHED_FIFO (`chrt -f 10`: they use ~15 % of a core, so nothing else starves) so
# that the tails measured are theirs. PRIO= turns it off; PRIO="nice -n -10" is a milder choice.
# Parts B and C never get it: B spins every core on purpose.
if [ -z "${PRIO+x}" ]; then
  if [ "$(id -u)" = 0 ] && chrt -f 10 true 2>/dev/null; then PRIO="chrt -f 10"; else PRIO=""; fi
fi
[ -x "$FLEET" ] || { echo "accuracy.sh: $FLEET not found; run 'swift build -c release' or set FLEET=" >&2; exit 2; }
WORK=$(mktemp -d /tmp/fleet-accuracy.XXXXXX)
STACK_PID=""
cleanup() { [ -n "$STACK_PID" ] && kill "$STACK_PID" 2>/dev/null; wait 2>/dev/null; rm -rf "$WORK"; }
trap cleanup EXIT
FAILED=0

# Starts `fleet stack` with the JSON settings in $1 and sets STACK_URL (loopback, free port).
start_stack() {
  echo "$1" > "$WORK/stack.json"
  $PRIO "$FLEET" stack --port 0 --config "$WORK/stack.json" > "$WORK/stack.out" 2>"$WORK/stack.err" &
  STACK_PID=$!
  for _ in $(seq 1 200); do
    STACK_URL=$(sed -n 's/^READY //p' "$WORK/stack.out")
    [ -n "$STACK_URL" ] && return 0
    sleep 0.1
  done
  echo "accuracy.sh: the stack did not start: $(cat "$WORK/stack.err")" >&2; exit 1
}
stop_stack() { kill "$STACK_PID" 2>/dev/null || true; wait "$STACK_PID" 2>/dev/null || true; STACK_PID=""; }

# "12.34ms" / "812us" / "1.02s" (wrk and fleet blast) → milliseconds.
to_ms() { awk -v v="$1" 'BEGIN { if (v ~ /us$/) print v / 1000; else if (v ~ /ms$/) print v + 0; else if (v ~ /s$/) print v * 1000; else print v }'; }
pct() { awk -v p="$1" '$1 == p { print $2; exit }' "$2"; }

# verdict NAME MEASURED TRUTH: within 1 ms + 1 % of the truth?
verdict() {
  awk -v n="$1" -v m="$2" -v t="$3" 'BEGIN {
    d = m - t; if (d < 0) d = -d; tol = 1 + 0.01 * t
    printf "  %-34s bench %8.2f ms   truth %8.2f ms   |diff| %6.2f ms   tolerance %5.2f ms   %s\n", n, m, t, d, tol, (d <= tol ? "PASS" : "FAIL")
    exit (d <= tol ? 0 : 1) }' || FAILED=1
}

part_a() {
  echo "A. fixed 50 ms on GET /config at $RATE req/s for $SECONDS_A s (priority: ${PRIO:-normal})"
  local base='"workers": 2, "rateLimitPerSecond": 0'
  start_stack "{$base}"
  $PRIO "$FLEET" blast "$STACK_URL/config" -R "$RATE" -c 100 -d "$SECONDS_A" > "$WORK/base.txt"
  stop_stack
  start_stack "{$base, \"faults\": {\"GET /config\": {\"latencyMedianMs\": 50, \"latencySigma\": 0}}}"
  $PRIO "$FLEET" blast "$STACK_URL/config" -R "$RATE" -c 100 -d "$SECONDS_A" > "$WORK/fleet.txt"
  $PRIO wrk -t1 -c50 -d"${SECONDS_A}s" --latency "$STACK_URL/config" > "$WORK/wrk.txt"
  stop_stack
  sed 's/^/    fleet (50 ms)  | /' "$WORK/fleet.txt"; sed 's/^/    fleet (none)   | /' "$WORK/base.txt"
  grep -E "^ +(50|99)%|Requests/sec" "$WORK/wrk.txt" | sed 's/^/    wrk (50 ms)    | /'
  for p in 50 99; do
    local f b w
    f=$(to_ms "$(pct "$p%" "$WORK/fleet.txt")"); b=$(to_ms "$(pct "$p%" "$WORK/base.txt")")
    w=$(to_ms "$(awk -v p="$p%" '$1 == p { print $2; exit }' "$WORK/wrk.txt")")
    verdict "p$p vs wrk" "$f" "$w"
    verdict "p$p vs no-fault p$p + 50 ms" "$f" "$(awk -v b="$b" 'BEGIN { print b + 50 }')"
  done
}

# Runs a profile with `fleet run` against the embedded stack and sets REPORT to its directory.
run_profile() {
  local out
  "$FLEET" run --profile "$1" --out "$WORK/reports" --history "$WORK/history.sqlite" > "$WORK/run.out" || true
  grep -vE '^\[' "$WORK/run.out" | sed 's/^/    | /'
  REPORT=$(dirname "$(sed -n 's/^report: //p' "$WORK/run.out")")
}
csv_field() { awk -F, -v k="$2" -v c="$3" '$1 == k { print $c; exit }' "$1"; }

part_b() {
  echo "B. generator stalled for 1 s at 6 s (profile debug hook)"
  cat > "$WORK/stall.json" <<JSON
{"name": "accuracy-stall", "seed": 9, "duration_s": 14, "grace_s": 10, "time_scale": 0.02,
 "stack": {"newUserEntitlement": "active", "workers": 8, "assessmentMedianMs": 100},
 "think_times": {"default": {"type": "constant", "ms": 1000}},
 "debug": {"stall_at_s": 6, "stall_s": 1},
 "thresholds": {"http": ["p99 < 1"]},
 "scenarios": [{"name": "open", "model": {"type": "constant-arrival-rate", "rate": 20, "duration_s": 12},
                "journeys": {"dailyQuest": 1}, "cohorts": {"subscriber": 1}}]}
JSON
  run_profile "$WORK/stall.json"
  local lag_p99 lag_max all busiest corr unc
  lag_p99=$(csv_field "$REPORT/summary.csv" scheduling_lag 5); lag_max=$(csv_field "$REPORT/summary.csv" scheduling_lag 7)
  # Every request together (corrected), from the run's own "http p99" threshold verdict.
  all=$(sed -n 's/.*threshold failed: http p99 < 1: \([0-9.]*\) ms.*/\1/p' "$WORK/run.out" | head -1)
  # The endpoint with the most requests: corrected p99 (column 6) against uncorrected (column 18).
  busiest=$(awk -F, 'NR > 1 && $2 + 0 > n { n = $2 + 0; row = $0 } END { print row }' "$REPORT/endpoints.csv")
  corr=$(echo "$busiest" | awk -F, '{ print $6 }'); unc=$(echo "$busiest" | awk -F, '{ print $18 }')
  echo "  scheduling_lag p99 $lag_p99 ms, max $lag_max ms; all requests p99 (corrected) $all ms"
  echo "  busiest endpoint $(echo "$busiest" | cut -d, -f1) (n=$(echo "$busiest" | cut -d, -f2)): p99 corrected $corr ms, uncorrected $unc ms"
  echo "  scheduling_lag per window (s, p99 ms, max ms):" \
    $(awk -F, '$2 == "scheduling_lag" && $1 >= 4 && $1 <= 9 { printf "[%g: %s, %s] ", $1, $6, $7 }' "$REPORT/timeline.csv")
  check() { if awk "BEGIN { exit !($2) }"; then echo "  $1: PASS"; else echo "  $1: FAIL"; FAILED=1; fi; }
  check "scheduling_lag max >= 800 ms" "$lag_max >= 800"
  check "corrected p99 of all requests shows the stall (>= 300 ms)" "${all:-0} >= 300"
  check "busiest endpoint: corrected p99 >= 2x uncorrected" "${corr:-0} >= 2 * ${unc:-0}"
  if grep -q 'generator fell behind' "$WORK/run.out"; then echo "  the run says the generator fell behind: PASS"
  else echo "  the run says the generator fell behind: FAIL"; FAILED=1; fi
}

part_c() {
  echo "C. Poisson arrivals at λ = 20/s for 60 s in a real run"
  cat > "$WORK/poisson.json" <<JSON
{"name": "accuracy-poisson", "seed": 31, "duration_s": 60, "grace_s": 5, "time_scale": 0.01,
 "stack": {"newUserEntitlement": "active", "workers": 8, "assessmentMedianMs": 50},
 "think_times": {"default": {"type": "constant", "ms": 500}},
 "scenarios": [{"name": "open", "model": {"type": "constant-arrival-rate", "rate": 20, "duration_s": 60},
                "journeys": {"dailyQuest": 1}, "cohorts": {"subscriber": 1}}]}
JSON
  run_profile "$WORK/poisson.json"
  local n
  # Arrivals = users started + arrivals dropped for lack of capacity (none expected here).
  n=$(python3 -c "import json,sys; c = json.load(open(sys.argv[1]))['counters']; print(c.get('users_started:open', 0) + c.get('dropped_arrivals:open', 0))" "$REPORT/results.json")
  awk -v n="$n" 'BEGIN { m = 1200; s = sqrt(m); printf "  arrivals %d, expected 60λ = %d ± 3σ = %.0f   %s\n", n, m, 3 * s, ((n - m) ^ 2 <= 9 * s * s ? "PASS" : "FAIL"); exit !((n - m) ^ 2 <= 9 * s * s) }' || FAILED=1
}

for p in $PARTS; do
  case $p in A) part_a ;; B) part_b ;; C) part_c ;; *) echo "unknown part $p (A, B or C)" >&2; exit 2 ;; esac
done
exit $FAILED
