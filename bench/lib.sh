#!/usr/bin/env bash
# bench/lib.sh — what every benchmark shares: the load guard, the A B A B alternation, medians.
# Source it; it defines functions only.
#
# The machine is shared (2 cores). A figure taken while something else runs is not the figure,
# so every benchmark:
#   - refuses to start when the 1-minute load average is above LOAD_MAX (default 0.5), unless
#     LOADED_OK=1 (or the script's --loaded-ok flag): then it runs and marks its rows "loaded";
#     LOAD_WAIT=S first waits up to S seconds for the load to fall (unattended runs);
#   - records, before each single run, the 1-minute load and the cores busy in the last second
#     (from /proc/stat, while none of the bench's own processes runs): the load average still
#     carries the previous run of the same bench, the 1-second figure does not. A run that
#     started with more than LOAD_MAX cores busy is marked loaded;
#   - alternates its peers (A B A B …, PAIRS rounds, default 3) and quotes the median of the
#     per-round ratios with min–max.

LOAD_MAX=${LOAD_MAX:-0.5}
PAIRS=${PAIRS:-3}
LOADED_OK=${LOADED_OK:-0}
LOAD_WAIT=${LOAD_WAIT:-0}

# The 1-minute load average.
bench_load1() { cut -d' ' -f1 /proc/loadavg; }

# Cores busy (user+nice+system+irq+softirq+steal) over the next $1 seconds (default 1).
bench_busy_cores() {
    local span=${1:-1} a b
    a=$(awk '/^cpu / {print $2+$3+$4+$7+$8+$9, $2+$3+$4+$5+$6+$7+$8+$9}' /proc/stat)
    sleep "$span"
    b=$(awk '/^cpu / {print $2+$3+$4+$7+$8+$9, $2+$3+$4+$5+$6+$7+$8+$9}' /proc/stat)
    awk -v a="$a" -v b="$b" -v n="$(nproc)" 'BEGIN { split(a, x, " "); split(b, y, " ");
        t = y[2] - x[2]; printf "%.2f\n", (t > 0 ? n * (y[1] - x[1]) / t : 0) }'
}

# True when $1 > $2 (decimals).
bench_gt() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a > b) }'; }

# The start guard. Sets BENCH_LOADED=0 (quiet) or 1 (above the bound, allowed by LOADED_OK);
# returns 3 (and says why) when the machine is loaded and that is not allowed.
bench_load_guard() {
    local name=$1 waited=0 load
    load=$(bench_load1)
    while bench_gt "$load" "$LOAD_MAX" && [ "$waited" -lt "$LOAD_WAIT" ]; do
        sleep 5; waited=$((waited + 5)); load=$(bench_load1)
    done
    BENCH_LOADED=0
    if bench_gt "$load" "$LOAD_MAX"; then
        if [ "$LOADED_OK" = 1 ]; then
            echo "$name: load average $load > LOAD_MAX $LOAD_MAX; running anyway, rows marked loaded" >&2
            BENCH_LOADED=1
        else
            echo "$name: load average $load > LOAD_MAX $LOAD_MAX: refusing to measure (LOADED_OK=1 or --loaded-ok runs and marks the rows loaded; LOAD_WAIT=S waits)" >&2
            return 3
        fi
    fi
    BENCH_LOAD_START="$(cut -d' ' -f1-3 /proc/loadavg)"
    BENCH_STEAL_AT_START=$(bench_steal_ticks)
}

# The host's steal so far (ticks of /proc/stat's cpu line; see bench_steal_start below).
bench_steal_ticks() { awk '/^cpu / { print $9 }' /proc/stat; }

# "Host steal over the runs: S s." since the load guard (empty when the guard did not run).
bench_steal_summary() {
    [ -n "${BENCH_STEAL_AT_START:-}" ] || return 0
    awk -v a="$BENCH_STEAL_AT_START" -v b="$(bench_steal_ticks)" -v hz="$(getconf CLK_TCK)" \
        'BEGIN { printf "Host steal (CPU the hypervisor gave other guests) from the load guard to now: %.1f s.\n", (b - a) / hz }'
}

# Before one run: prints "LOAD1 BUSY FLAG" (FLAG loaded|quiet) and appends it with the run's
# label to $BENCH_LOADLOG when set. A run is loaded when the machine was busier than LOAD_MAX
# cores in the last second, or the whole bench started loaded.
bench_before_run() {
    local label=$1 load busy flag=quiet
    load=$(bench_load1); busy=$(bench_busy_cores 1)
    if bench_gt "$busy" "$LOAD_MAX" || [ "${BENCH_LOADED:-0}" = 1 ]; then flag=loaded; fi
    [ -n "${BENCH_LOADLOG:-}" ] && echo "$label $load $busy $flag" >> "$BENCH_LOADLOG"
    echo "$load $busy $flag"
}

# Runs `$2 ROUND` and `$3 ROUND` … (shell functions or commands, one per peer) in alternation,
# PAIRS rounds: A B A B …; more than two peers go A B C A B C. Each run is preceded by
# bench_before_run with label "PEER#ROUND". $1 = label prefix shown on stderr.
bench_alternate() {
    local title=$1; shift
    local round peer
    for round in $(seq 1 "$PAIRS"); do
        for peer in "$@"; do
            echo "== $title: $peer round $round/$PAIRS (load: $(bench_before_run "$peer#$round"))" >&2
            "$peer" "$round"
        done
    done
}

# Runs `$2 X ROUND` for X = A then B in odd rounds and B then A in even ones, PAIRS rounds, so
# neither of two binaries holds the first or the second place of every pair (bench/cpu-ab.sh,
# bench/syscalls.sh). Each run is preceded by bench_before_run with label "X#ROUND".
bench_alternate_swapped() {
    local title=$1 fn=$2 round x order
    for round in $(seq 1 "$PAIRS"); do
        order="A B"; [ $((round % 2)) = 0 ] && order="B A"
        for x in $order; do
            echo "== $title: $x round $round/$PAIRS (load: $(bench_before_run "$x#$round"))" >&2
            "$fn" "$x" "$round"
        done
    done
}

# Median and spread of the numbers on stdin (one per line; blanks and n/a ignored):
# prints "MEDIAN MIN MAX N" (n/a n/a n/a 0 when none). Python, so the median is exact.
bench_median() {
    python3 -c '
import sys, statistics
v = sorted(float(x) for x in sys.stdin.read().split() if x not in ("n/a", "nan", ""))
print(*(["%.4g" % statistics.median(v), "%.4g" % v[0], "%.4g" % v[-1], len(v)] if v else ["n/a", "n/a", "n/a", 0]))'
}

# "Load: start 0.12 0.30 0.40; per run 1-min 0.1–0.3, busy cores 0.0–0.1; 0 of 6 runs loaded."
bench_load_summary() {
    local log=${1:-$BENCH_LOADLOG}
    [ -s "$log" ] || { echo "Load at start: ${BENCH_LOAD_START:-unknown}."; bench_steal_summary; return; }
    awk -v start="${BENCH_LOAD_START:-unknown}" -v max="$LOAD_MAX" '
        { n++; if (n == 1 || $2 < l1) l1 = $2; if (n == 1 || $2 > h1) h1 = $2;
          if (n == 1 || $3 < lb) lb = $3; if (n == 1 || $3 > hb) hb = $3; if ($4 == "loaded") k++ }
        END { printf "Load: 1-min average at start %s; before each run 1-min %.2f–%.2f, cores busy in the last second %.2f–%.2f (bound LOAD_MAX %s); %d of %d runs loaded.\n", start, l1, h1, lb, hb, max, k, n }' "$log"
    bench_steal_summary
}

# Host steal while a run goes: CPU time the hypervisor gave to other guests. A shared host's
# contention shows neither in the load average nor in the 1-second check before a run, and it
# looks like the bench falling behind (a 200,000-user run took 5.9–30.9 ms of lag p99 one morning
# and 0.9–2.3 ms that afternoon, same binary, every run load-checked). bench_steal_start samples
# /proc/stat every second (the sampler ends with the script); bench_steal_stop prints
# "SECONDS MAX": steal over the run and the most cores stolen in any one second.
bench_steal_start() {
    BENCH_STEAL_LOG=$(mktemp /tmp/fleet-steal.XXXXXX)
    local parent=$$
    ( while kill -0 "$parent" 2>/dev/null; do bench_steal_ticks; sleep 1; done ) > "$BENCH_STEAL_LOG" 2>/dev/null &
    BENCH_STEAL_PID=$!
}
bench_steal_stop() {
    kill "$BENCH_STEAL_PID" 2>/dev/null; wait "$BENCH_STEAL_PID" 2>/dev/null || true  # killed: status 143
    awk -v hz="$(getconf CLK_TCK)" 'NR > 1 { d = $1 - p; s += d; if (d > m) m = d } { p = $1 }
        END { printf "%.1f %.2f\n", s / hz, m / hz }' "$BENCH_STEAL_LOG"
    rm -f "$BENCH_STEAL_LOG"
}

# CPU seconds (user + system) a process has used so far, from /proc/PID/stat.
bench_proc_cpu() {
    awk -v hz="$(getconf CLK_TCK)" '{ sub(/^.*\) /, ""); printf "%.3f\n", ($12 + $13) / hz }' "/proc/$1/stat" 2>/dev/null
}

# Starts `FLEET stack --port 0 ARGS… --duration 3600` (its own process; output in $2) and waits
# for its READY line; sets BENCH_STACK_PID and BENCH_STACK_URL, and stops it on exit.
# $1 = fleet binary, $2 = output file, rest = stack flags.
bench_stack_start() {
    local fleet=$1 out=$2; shift 2
    # BENCH_STACK_NICE=N starts the stack at that nice level (all its threads inherit it);
    # BENCH_STACK_IDLE=1 under SCHED_IDLE (`chrt -i 0`, allowed unprivileged): its threads then
    # run only on a core no normal thread wants, so they never preempt the bench.
    ${BENCH_STACK_IDLE:+chrt -i 0} ${BENCH_STACK_NICE:+nice -n "$BENCH_STACK_NICE"} "$fleet" stack --port 0 "$@" --duration 3600 > "$out" 2>&1 &
    BENCH_STACK_PID=$!
    trap 'kill $BENCH_STACK_PID 2>/dev/null || true' EXIT
    trap 'kill $BENCH_STACK_PID 2>/dev/null || true; exit 130' INT TERM
    for _ in $(seq 100); do grep -q READY "$out" 2>/dev/null && break; sleep 0.2; done
    BENCH_STACK_URL=$(sed -n 's/^READY //p' "$out")
    [ -n "$BENCH_STACK_URL" ] || { echo "fleet stack did not start (see $out)" >&2; return 1; }
}

# Thinking users for the task allocator's scripts (bench/task-memory.sh, bench/task-slabs.sh): $2
# daily-quest users ramped over $3 s who sign in, read home and think 10 minutes, 15 s in all.
# $1 = name, $4 = further top-level members (`"checks": {...},`) or empty. Needs BENCH_ROOT.
bench_thinking_profile() {
    cat <<JSON
{
  "name": "$1", "seed": 7, "duration_s": 15, "grace_s": 0, "window_s": 1, "max_lag_ms": 60000, $4
  "client": { "app_version": "1.4.0", "request_timeout_s": 30 },
  "corpus": { "dir": "$BENCH_ROOT/audio-corpus", "clip_mix": { "speech": 1.0 } },
  "think_times": { "default": { "type": "uniform", "min_ms": 1000, "max_ms": 3000 }, "home": { "type": "constant", "ms": 600000 } },
  "scenarios": [ { "name": "thinking", "model": { "type": "constant-population", "users": $2, "duration_s": 15, "ramp_s": $3 },
      "journeys": { "dailyQuest": 1 }, "cohorts": { "new": 1 } } ]
}
JSON
}

# The daily quest walked once by each of $2 users arriving over $3 s, every think $4 ms, time scale
# $5 on thinks and recordings, at most $6 s (bench/peers-journey.sh, bench/syscalls.sh). $1 = name
# (bench/$1.sh). The seed is 7; callers give each run its own by replacing `"seed": 7,`.
bench_once_quest_profile() {
    cat <<JSON
{
  "name": "$1",
  "description": "bench/$1.sh: $2 users each walk the daily quest once",
  "seed": 7,
  "duration_s": $6,
  "grace_s": 5,
  "window_s": 1,
  "time_scale": $5,
  "client": { "app_version": "1.4.0", "request_timeout_s": 30 },
  "corpus": { "dir": "$BENCH_ROOT/audio-corpus", "clip_mix": { "speech": 1.0 } },
  "think_times": { "default": { "type": "constant", "ms": $4 } },
  "scenarios": [
    {
      "name": "quest",
      "model": { "type": "per-user-once", "users": $2, "ramp_s": $3, "max_duration_s": $6 },
      "journeys": { "dailyQuest": 1 },
      "cohorts": { "new": 1 }
    }
  ]
}
JSON
}

# The daily quest with no think time for a constant population, as bench/overhead.sh and
# bench/instructions.sh run it. $1 = name, $2 = seed, $3 = seconds, $4 = users, $5 = grace seconds,
# $6 = further top-level members (`"checks": {...},`) or empty. Needs BENCH_ROOT (bench/peers.sh).
bench_quest_profile() {
    cat <<JSON
{
  "name": "$1", "seed": $2, "duration_s": $3, "grace_s": $5, "window_s": 1, "time_scale": 0.0001,
  "think_times": {"default": {"type": "constant", "ms": 0}}, $6
  "corpus": {"dir": "$BENCH_ROOT/audio-corpus", "clip_mix": {"speech": 1}},
  "scenarios": [{"name": "q", "model": {"type": "constant-population", "users": $4, "duration_s": $3},
                 "journeys": {"dailyQuest": 1}, "cohorts": {"new": 1}}]
}
JSON
}

# Records the first 3,000 requests of a `fleet run` of profile $4 (FLEET_HTTP_RECORD) into
# $3/rec.jsonl for `fleet blast --replay`; the run's folder is $3/record. Fails when nothing was
# recorded. $1 = fleet binary, $2 = target URL, $3 = work folder.
bench_record_requests() {  # $1 fleet, $2 url, $3 work dir, $4 profile, [$5 at most this many requests, default 3000]
    (cd "$BENCH_ROOT" && FLEET_HTTP_RECORD="$3/rec.jsonl" FLEET_HTTP_RECORD_MAX="${5:-3000}" timeout 120 \
        "$1" run --profile "$4" --target "$2" --out "$3/record" --history "$3/h.sqlite" \
        > "$3/record.out" 2>&1) || true
    [ -s "$3/rec.jsonl" ] || { echo "no requests recorded (see $3/record.out)" >&2; return 1; }
}
