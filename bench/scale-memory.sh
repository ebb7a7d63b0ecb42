#!/usr/bin/env bash
# bench/scale-memory.sh — many virtual users in one process: resident memory per thinking user,
# scheduling lag while they think, and how soon the process exits after the planned end.
#
# Phase "thinking" (per size in -u): a constant population of daily-quest users (new users:
# sign-in, config, home, then a 10-minute think at home), ramped in at --rate users/s, then held
# HOLD seconds while all of them think. Phase "active" (--active, default 10 %): the same number
# of users, of whom that share walks `freePractice` with human-paced thinks (every think uniform
# ACTIVE_THINK_MIN–MAX ms, recordings at their clip's length) while the rest think as above —
# "10 % of them active at once". (The daily quest's thinkers stop at the `home` think; the active
# share walks a journey without it, so one profile holds both.) The active share starts when
# the thinkers are all in, ramped at the same rate: ramped together (until 2026-12-02), the
# thinkers' sign-ins (3 requests each, 2,100/s at 700 users/s) and the walkers' uploads overran
# this 2-core machine ~160 s in, the stack's answers slowed, the bench opened connections past
# the stack's own limit of 10,000 (it closes the ones above at once), and resets, repeats and
# timeouts took both down: that measured the shared machine's collapse, not the held state.
# The walkers ramp at half the rate: each sends 5 requests in its first seconds (sign-in, config,
# home, topics, articles), and at the full rate their start alone overran the stack (10,000
# connections, resets, lag p99 up to 357 ms for two minutes; 2026-12-02 18:28).
# Lag bursts just after the ramps (20-55 ms, 2026-12-04) were the stack's first decodes of each
# clip, several per clip at once and at the bench's priority, taking both cores (perf); the stack
# now decodes a clip once and on threads at nice +10 (FleetStack's LowPriorityThreads).
# The stack is a `fleet stack` process of its own, started fresh for each phase and reached with
# --target: its memory is not counted, and its shutdown is not part of the bench's exit. (Started
# by `fleet run` itself, the embedded stack is a child the run waits for: at 200,000 users its
# shutdown removed 855 MB of uploaded clips, 13,000 files, ~1.7 s after the bench's own teardown;
# 2026-12-03 08:27, exit 5.4 s of which ~1.7 s was that wait.) Scheduling lag is measured on requests (how late each went
# out after its user's pause ended), and thinking users send none: so the thinking phase also runs
# 100 probe users walking freePractice with 1–3 s thinks beside the population.
#
# Figures per run: the largest RSS of the bench's own health samples while the whole
# population was alive (per user: RSS / users); scheduling lag from timeline.csv over the held
# windows (the largest per-window p99, and the median of them); exit after planned end = the
# process's exit minus (its "run …" line + the planned duration), which includes writing results
# and the report. Goals (issue 18): ≤ 14.5 KiB per user at 200,000, lag p99 < 10 ms, exit ≤ 5 s.
#
# With checks on (the default, as in any run), the end-of-run audit reads /me and /home of every
# user (32 at a time) after the planned end: ~2-3 s at 20,000 users, 21-31 s at 200,000 (400,000
# requests at 13,000-19,000 a second with both cores busy; 2026-12-07), so it dominates the exit.
# The table shows its time apart (the run says when the audit starts and how long it took);
# --checks off measures the generator without it.
#
# The stack gets $stack_workers assessment workers (default 1024, the most it takes): its service
# time is a simulated 300 ms median, so W workers assess at most W / 0.3 s. With 2 (the value
# until 2026-12-02) that is ~6.7 assessments/s, far below what 20,000 active users submit: the
# assessment queue grew from ~100 s on, polls multiplied, and ~200 s in the stack collapsed
# (46,000 transfers in flight, 117,000 timeouts), which measured the stack's queue, not the
# generator. A 20,000-user freePractice run against 1,024 workers held turnaround p99 at the
# 2 s first poll for 240 s (bench/RESULTS.md, item 6).
#
# --connections N caps the bench's connections (the profile's client.connections; default 0 = the
# run's automatic cap, what its open files and ephemeral ports allow: 19,872 here). Observed on 2026-12-01 (loaded machine): at 1,500 users/s and no cap, a
# 200,000-user run fell behind from ~40,000 users on (the stack could not sign users in that
# fast), its in-flight count passed 100,000, RSS 5 GB, the I/O loop stalled for seconds at a time
# (libcurl 7.88 walks a multi handle's connection cache for every transfer it removes), and one
# such run died in libdispatch (SIGILL on an overcommit thread) at 135,000 users. With a cap of
# 4,096 a 30,000-user run held 34 KiB per user against 25 KiB uncapped at 20,000: not a fix by
# itself. Hence the default rate of 700 users/s, which held 50,000 users before.
#
#   bench/scale-memory.sh [-u "200000"] [--rate USERS_PER_S] [--hold S] [--active SHARE|0] [--checks on|off] [--connections N] [--stack-workers W] [--only thinking|active] [--stack-nice N] [--stack-idle] [--loaded-ok]
#       (defaults 200000 users at 700/s, hold 30 s, active 0.1; env LOAD_MAX, LOAD_WAIT, FLEET_BIN).
#       Takes per size about 2 × (users / rate + hold + 40) + 120 s: 14 min at the defaults.
set -euo pipefail
# shellcheck source=bench/peers.sh
source "$(dirname "$0")/peers.sh"

sizes="200000" rate=700 hold=30 active=0.1 probe=100 checks=on connections=0 stack_workers=1024 only=""
active_min=20000 active_max=60000
while [ $# -gt 0 ]; do
    case "$1" in
        -u) sizes=$2; shift 2 ;;
        --rate) rate=$2; shift 2 ;;
        --hold) hold=$2; shift 2 ;;
        --active) active=$2; shift 2 ;;
        --checks) checks=$2; shift 2 ;;  # on|off: off drops the invariant checks and their end-of-run audit
        --stack-workers) stack_workers=$2; shift 2 ;;
        --only) only=$2; shift 2 ;;  # thinking|active: run that phase alone
        --stack-nice) BENCH_STACK_NICE=$2; shift 2 ;;  # the stack's nice level (default 0: as the bench)
        --stack-idle) BENCH_STACK_IDLE=1; shift ;;  # the stack under SCHED_IDLE: it never preempts the bench
        --connections) connections=$2; shift 2 ;;  # the profile's client.connections (0 = automatic)
        --loaded-ok) LOADED_OK=1; shift ;;
        *) echo "usage: bench/scale-memory.sh [-u \"200000\"] [--rate USERS_PER_S] [--hold SECONDS] [--active SHARE] [--checks on|off] [--connections N] [--stack-workers W] [--only thinking|active] [--stack-nice N] [--stack-idle] [--loaded-ok]" >&2; exit 2 ;;
    esac
done
ulimit -n 65536 2>/dev/null || ulimit -n 20000 2>/dev/null || true
fleet=$(bench_fleet_bin)
bench_load_guard scale-memory || exit 3
work=$(mktemp -d /tmp/fleet-memory.XXXXXX)
BENCH_LOADLOG="$work/load.log"

# Walkers of the active phase (the active share of $1 users).
walkers_of() { awk -v n="$1" -v a="$active" 'BEGIN { printf "%d", n * a }'; }

# $1 = users, $2 = phase (thinking|active), $3 = duration, $4 = thinkers' ramp; in the active
# phase the walkers start at $4 and ramp in $5 s.
write_profile() {
    local n=$1 phase=$2 duration=$3 ramp=$4 thinkers=$1 walkers=$probe start=0 walk_ramp=$4
    if [ "$phase" = active ]; then
        walkers=$(walkers_of "$n")
        thinkers=$((n - walkers))
        start=$ramp walk_ramp=$5
    fi
    local walking=",
    {
      \"name\": \"active\", \"start_s\": $start,
      \"model\": { \"type\": \"constant-population\", \"users\": $walkers, \"duration_s\": $((duration - start)), \"ramp_s\": $walk_ramp },
      \"journeys\": { \"freePractice\": 1 },
      \"cohorts\": { \"new\": 1 }
    }"
    local default_think='{ "type": "uniform", "min_ms": 1000, "max_ms": 3000 }'
    [ "$phase" = active ] && default_think="{ \"type\": \"uniform\", \"min_ms\": $active_min, \"max_ms\": $active_max }"
    cat <<JSON
{
  "name": "memory-$n-$phase",
  "description": "bench/scale-memory.sh: $n users, $walkers of them active",
  "seed": 7,
  "duration_s": $duration,
  "grace_s": 0,
  "window_s": 1,
  "max_lag_ms": 60000,$( [ "$checks" = off ] && echo '
  "checks": { "enabled": false },' || true)
  "client": { "app_version": "1.4.0", "request_timeout_s": 30, "connections": $connections },
  "corpus": { "dir": "$BENCH_ROOT/audio-corpus", "clip_mix": { "speech": 1.0 } },
  "think_times": { "default": $default_think, "home": { "type": "constant", "ms": 600000 } },
  "scenarios": [
    {
      "name": "thinking",
      "model": { "type": "constant-population", "users": $thinkers, "duration_s": $duration, "ramp_s": $ramp },
      "journeys": { "dailyQuest": 1 },
      "cohorts": { "new": 1 }
    }$walking
  ]
}
JSON
}

phases="thinking"
[ "$(awk -v a="$active" 'BEGIN { print (a > 0) }')" = 1 ] && phases="thinking active"
[ -n "$only" ] && phases=$only
for n in $sizes; do
    for phase in $phases; do
        ramp=$(( (n + rate - 1) / rate ))
        walk_ramp=0
        if [ "$phase" = active ]; then
            walk_ramp=$(( (2 * $(walkers_of "$n") + rate - 1) / rate ))  # at half the rate (below)
            ramp=$(( (n - $(walkers_of "$n") + rate - 1) / rate ))
        fi
        held_from=$(( ramp + walk_ramp ))
        duration=$(( held_from + hold ))
        # Walkers think 20–60 s before their first upload: two longest thinks more, so that the
        # held windows see them uploading and polling, not only signing in.
        [ "$phase" = active ] && duration=$(( duration + 2 * active_max / 1000 ))
        tag="$n-$phase"
        write_profile "$n" "$phase" "$duration" "$ramp" "$walk_ramp" > "$work/mem-$tag.json"
        echo "== $tag: ramp ${held_from}s, hold ${hold}s (load: $(bench_before_run "$tag"))" >&2
        # Each output line gets its arrival time, so the exit's lag behind the planned end (start
        # line + duration) can be read off: a 50,000-user run once took over 120 s to exit.
        bench_stack_start "$fleet" "$work/stack-$tag.out" --entitlement active --workers "$stack_workers" || exit 1
        bench_steal_start
        (cd "$BENCH_ROOT" && set -o pipefail && timeout $((duration + 180)) "$fleet" run --profile "$work/mem-$tag.json" \
            --target "$BENCH_STACK_URL" --out "$work/out-$tag" --history "$work/h.sqlite" 2>&1 \
            | while IFS= read -r line; do printf '%s %s\n' "$(date +%s.%N)" "$line"; done > "$work/run-$tag.log") \
            || echo "   (run $tag exited $?; see $work/run-$tag.log)" >&2
        echo "$tag $(date +%s.%N) $duration $held_from" >> "$work/exits"
        bench_steal_stop > "$work/steal-$tag"
        kill "$BENCH_STACK_PID" 2>/dev/null; wait "$BENCH_STACK_PID" 2>/dev/null || true
    done
done

section="$work/section.md"
{
    echo "## Scale: many users in one process (memory per thinking user, scheduling lag, exit)"
    echo
    echo "Measured $(date -u '+%Y-%m-%d %H:%M UTC') on $(bench_machine) by \`bench/scale-memory.sh -u \"$sizes\" --rate $rate --hold $hold --active $active --checks $checks --connections $connections --stack-workers $stack_workers${BENCH_STACK_NICE:+ --stack-nice $BENCH_STACK_NICE}${BENCH_STACK_IDLE:+ --stack-idle}\`"
    echo "(thinking: daily quest, new users: sign-in, config, home, then a 10-minute think; active: the same population"
    echo "with a share $active walking freePractice, every think uniform ${active_min}–${active_max} ms, who start when the thinkers are all in and ramp at half the rate; ramp at $rate users/s, then"
    echo "held ${hold} s (the active phase $((2 * active_max / 1000)) s longer, so that its walkers upload and poll); the stack a \`fleet stack\` process of its own (fresh per phase, \`--target\`) with $stack_workers assessment workers, not counted, nor its shutdown. RSS = the largest of the bench process's health samples"
    echo "while the whole population was alive; lag = scheduling_lag of timeline.csv over the held windows: the largest"
    echo "per-window p99 (an upper bound on the held p99), their median, and how many held windows reached 10 ms (one"
    echo "stall shows as one window, a generator that keeps falling behind as many); exit after planned end = the process's exit"
    echo "minus (its \"run …\" line + the planned duration), results and report writing included (with checks on, the end-of-run audit's"
    echo "time apart: from its \"audit: re-reading\" line to its \"re-read in\" line); host steal = CPU time"
    echo "the hypervisor gave other guests while the run went (/proc/stat), over the run and the most in any one second."
    bench_load_summary
    [ "$BENCH_LOADED" = 1 ] && echo "**Loaded: taken while other work shared the machine; provisional, not the figure.**"
    echo "Replaces the 2026-11-29 table (1,000/10,000/50,000 thinking users, 14.5 KiB per user at 50,000)."
    echo "Goals (issue 18): ≤ 14.5 KiB per user at 200,000 thinking, lag p99 < 10 ms while they think, exit ≤ 5 s."
    echo
    python3 - "$work" <<'PY'
import csv, glob, json, os, statistics, sys
work = sys.argv[1]
print("| run | users | peak active users | bench RSS MiB (population held) | KiB per user | lag p99 ms, held windows: max (median; ≥ 10 ms) | exit after planned end s | host steal s (most cores in 1 s) | run notes |")
print("|---|---:|---:|---:|---:|---:|---:|---:|---|")
for line in open(os.path.join(work, "exits")):
    tag, at, duration, ramp = line.split()  # ramp: when the whole population is in
    n = int(tag.split("-")[0])
    log = os.path.join(work, f"run-{tag}.log")
    # When the run first said something (each line: arrival time, then what it said).
    said = lambda match: next((float(t) for t, m in (l.rstrip("\n").split(" ", 1) for l in open(log)) if match(m)), None)
    started = said(lambda m: m.startswith("run "))
    exit_lag = float(at) - started - float(duration) if started else None
    # With checks on, the end-of-run audit says when it starts and ends: its time is shown apart.
    audit_from = said(lambda m: m.startswith("audit: re-reading "))
    audit_to = said(lambda m: m.startswith("audit: ") and " users re-read in " in m)
    audit_s = audit_to - audit_from if audit_from and audit_to else None
    files = glob.glob(os.path.join(work, f"out-{tag}", "**", "results.json"), recursive=True)
    f = lambda v, fmt: (fmt % v) if v is not None else "n/a"
    try:
        stolen, most = open(os.path.join(work, f"steal-{tag}")).read().split()
        steal = f"{stolen} ({most})"
    except (OSError, ValueError):
        steal = "n/a"
    if not files:
        print(f"| {tag} | {n} | n/a | n/a | n/a | n/a | {f(exit_lag, '%.1f')} | {steal} | no results.json |"); continue
    r = json.load(open(files[0]))
    health = r.get("health", [])
    peak = max((h.get("activeUsers", 0) for h in health), default=0)
    held = [h["rssBytes"] for h in health if h.get("activeUsers", 0) >= 0.99 * n and h.get("rssBytes")]
    rss = max(held) if held else None
    lags = []
    tl = glob.glob(os.path.join(os.path.dirname(files[0]), "timeline.csv"))
    if tl:
        for row in csv.DictReader(open(tl[0])):
            if row["metric"] == "scheduling_lag" and float(row["window_start_s"]) >= float(ramp) + 2 \
               and float(row["window_start_s"]) < float(duration) - 1 and row["p99_ms"]:
                lags.append(float(row["p99_ms"]))
    slow = sum(1 for v in lags if v >= 10)
    lag = f"{max(lags):.1f} ({statistics.median(lags):.1f}; {slow} of {len(lags)})" if lags else "n/a"
    notes = "; ".join(r.get("meta", {}).get("notes", [])) or "ok"
    exit_cell = f(exit_lag, '%.1f') + (f" (audit {audit_s:.1f}; without it {exit_lag - audit_s:.1f})" if audit_s is not None and exit_lag is not None else "")
    print(f"| {tag} | {n} | {peak} | {f(rss / 1048576 if rss else None, '%.1f')} | {f(rss / 1024 / n if rss else None, '%.1f')} | {lag} | {exit_cell} | {steal} | {notes} |")
PY
} > "$section"
cat "$section"
bench_write_section scale-memory "$section"
echo "wrote bench/RESULTS.md (section scale-memory); raw outputs in $work" >&2
