#!/usr/bin/env bash
# bench/instructions.sh — instructions per request, counted by valgrind (callgrind): the
# journeys against the bare engine replaying their requests at their pace, and an older binary's
# journeys beside them (--before). A count of executed instructions does not move with the host's
# steal, the other guests' cache pollution or the load average, which on this shared VM moved the
# CPU-time figures of bench/overhead.sh by ±25 % between rounds; it is the steady measure of
# what a change removed. It is not time: at a human pace a request's CPU is dominated by what
# instructions do not count (cold caches after every sleep, wake-ups, the kernel's TCP path), so
# bench/overhead.sh and bench/peers-journey.sh stay the figures of record for the goals.
#
# 1. Starts one `fleet stack --median-ms 20` (its own process, not counted).
# 2. Journeys: `fleet run` of USERS users walking the daily quest with no think time for SECONDS
#    under callgrind, checks on but no end-of-run audit (audit_max_s 0: its reads are another
#    request sequence). The figure is the inclusive count of `IOLoop.run`, the I/O threads where
#    the users' code, the client, checker and recorder, and the engine all run (start-up, the
#    pre-flight probe's continuation and the report run on other threads), over the requests the
#    run made. The per-second work off those threads (the monitor: result stream, progress) is
#    given apart.
# 3. Engine: the same run's requests, recorded (FLEET_HTTP_RECORD) by a first journey run
#    outside valgrind, replayed by `fleet blast --replay` under callgrind at the rate and over the
#    connections the journeys had under valgrind; `IOLoop.run` over its requests.
# valgrind 3.19 cannot read the Swift toolchain's DWARF, so each binary is copied and stripped of
# debug info (its symbol table stays: callgrind still names every function).
#
#   bench/instructions.sh [-u USERS] [-d SECONDS] [--before FLEET_BIN]
#       (defaults 16 users, 20 s; env FLEET_BIN). Takes about 3 × (SECONDS + 15) s under valgrind.
set -euo pipefail
# shellcheck source=bench/peers.sh
source "$(dirname "$0")/peers.sh"

users=16 duration=20 before=""
while [ $# -gt 0 ]; do
    case "$1" in
        --before) before=$2; shift 2 ;;
        -u) users=$2; shift 2 ;;
        -d) duration=$2; shift 2 ;;
        *) echo "usage: bench/instructions.sh [-u USERS] [-d SECONDS] [--before FLEET_BIN]" >&2; exit 2 ;;
    esac
done
command -v valgrind >/dev/null || { apt-get -o DPkg::Lock::Timeout=300 install -y -qq valgrind >/dev/null 2>&1 || true; }
command -v valgrind >/dev/null || { echo "valgrind is not installed" >&2; exit 1; }
ulimit -n 20000 2>/dev/null || true
fleet=$(bench_fleet_bin)
work=$(mktemp -d /tmp/fleet-instructions.XXXXXX)
BENCH_LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)

strip_copy() {  # $1 = binary, $2 = copy
    cp "$1" "$2" && strip --strip-debug "$2"
}
strip_copy "$fleet" "$work/fleet"
[ -n "$before" ] && strip_copy "$before" "$work/fleet-before"

bench_stack_start "$fleet" "$work/stack.out" --entitlement active --workers 16 --median-ms 20 --sigma 0 --rate-limit 0 || exit 1
url=$BENCH_STACK_URL

profile() {  # $1 = seed; no end-of-run audit (audit_max_s 0: its reads are another request sequence)
    bench_quest_profile instructions "$1" "$duration" "$users" 10 '"checks": {"audit_s": 0, "audit_max_s": 0},'
}

journeys_under_callgrind() {  # $1 = binary, $2 = name, $3 = seed
    local bin=$1 name=$2
    profile "$3" > "$work/$name.json"
    (cd "$BENCH_ROOT" && timeout $((duration * 30 + 300)) valgrind --tool=callgrind --callgrind-out-file="$work/cg.$name.out" \
        "$bin" run --profile "$work/$name.json" --target "$url" --out "$work/$name" --history "$work/h.sqlite" \
        > "$work/$name.out" 2> "$work/$name.err") || echo "   ($name exited $?; see $work/$name.err)" >&2
}

echo "== recording the journeys' requests (no valgrind)" >&2
profile 11 > "$work/record.json"
bench_record_requests "$fleet" "$url" "$work" "$work/record.json" || exit 1

echo "== journeys under callgrind" >&2
journeys_under_callgrind "$work/fleet" journeys 12
if [ -n "$before" ]; then
    echo "== journeys of the --before binary under callgrind" >&2
    # Its own corpus check cache, filled outside valgrind: a binary that stamps clips otherwise
    # (before 2026-12-07) would find the cache stale and check all 118 clips under callgrind.
    export FLEET_CACHE_DIR="$work/cache-before"
    (cd "$BENCH_ROOT" && "$work/fleet-before" run --profile profiles/smoke.json --target "$url" --duration 1 \
        --out "$work/warm-before" --history "$work/h.sqlite" > /dev/null 2>&1) || true
    journeys_under_callgrind "$work/fleet-before" before 13
    unset FLEET_CACHE_DIR
fi

# The replay runs at the journeys' own pace under valgrind, over their mean in-flight count.
read -r rate conns < <(python3 - "$work/journeys" <<'PY'
import glob, json, sys
f = glob.glob(sys.argv[1] + "/**/results.json", recursive=True)
r = json.load(open(f[0]))
h = [s for s in r["health"] if s.get("activeUsers", 0) > 0]
reqs = sum(sum(e["statuses"].values()) for e in r["endpoints"])
print(max(1, round(reqs / max(1, len(h)))), max(1, round(sum(s["inFlight"] for s in h) / len(h))) if h else 4)
PY
)
echo "== engine replay under callgrind ($rate req/s over $conns connections)" >&2
(cd "$BENCH_ROOT" && timeout $((duration * 30 + 300)) valgrind --tool=callgrind --callgrind-out-file="$work/cg.engine.out" \
    "$work/fleet" blast "$url" --replay "$work/rec.jsonl" -c "$conns" -R "$rate" -d "$duration" \
    > "$work/engine.out" 2> "$work/engine.err") || echo "   (blast exited $?; see $work/engine.err)" >&2

section="$work/section.md"
{
    echo "## Instructions per request: the journeys against the bare engine (callgrind)"
    echo
    echo "Measured $(date -u '+%Y-%m-%d %H:%M UTC') on $(bench_machine) by \`bench/instructions.sh -u $users -d $duration${before:+ --before BIN}\`"
    echo "($users users walk the daily quest with no think time against \`fleet stack --median-ms 20\` under valgrind's"
    echo "callgrind, checks on, no end-of-run audit; the engine replays the requests a first run recorded at the journeys'"
    echo "pace under valgrind ($rate req/s) over $conns connections. \`IOLoop.run\` = the I/O threads' instructions"
    echo "(users' code, client, checker, recorder, engine, libcurl); per-second work = the monitor's result stream and"
    echo "progress line, per one-second window of the run. Executed instructions do not move with load or host steal;"
    echo "they are not time. One run each: under valgrind the pace, and so the per-request figures, vary by a few %.)"
    echo "Load at start: $BENCH_LOAD_START (not judged: instruction counts do not depend on it)."
    echo
    python3 - "$work" "$before" <<'PY'
import glob, json, os, re, subprocess, sys
work, before = sys.argv[1], sys.argv[2]

def inclusive(cg):
    out = subprocess.run(["callgrind_annotate", "--inclusive=yes", "--threshold=100", cg],
                         capture_output=True, text=True).stdout
    def find(pattern):
        for line in out.splitlines():
            if re.search(pattern, line) and "'2" not in line:
                return int(line.split()[0].replace(",", ""))
        return 0
    total = 0
    for line in out.splitlines():
        if "PROGRAM TOTALS" in line: total = int(line.split()[0].replace(",", ""))
    return dict(total=total, io=find(r"IOLoopC3run\d"), stream=find(r"RunWiringV8streamer3say.*tFyAGYbcfU_ \["),
                record=find(r"RecorderC13recordRequest_.*tF \["), compact=find(r"HistogramV7compactyyF"),
                checker=find(r"UserCheckerC9exchangedyy0A6Client8ExchangeVF \["))

def journeys(name):
    f = glob.glob(os.path.join(work, name, "**", "results.json"), recursive=True)
    if not f or not os.path.exists(os.path.join(work, f"cg.{name}.out")): return None
    r = json.load(open(f[0]))
    reqs = sum(sum(e["statuses"].values()) for e in r["endpoints"] if not e["name"].startswith("audit:"))
    return dict(reqs=reqs, windows=len(r["health"]), **inclusive(os.path.join(work, f"cg.{name}.out")))

def engine():
    p = os.path.join(work, "engine.out")
    if not os.path.exists(p): return None
    m = re.search(r"(\d+) requests in", open(p).read())
    if not m: return None
    return dict(reqs=int(m.group(1)), windows=0, **inclusive(os.path.join(work, "cg.engine.out")))

rows = [("journeys (fleet run, dailyQuest)", journeys("journeys"))]
if before: rows.append(("journeys, --before binary", journeys("before")))
rows.append(("bare engine (fleet blast --replay, paced)", engine()))
k = lambda x: f"{x / 1000:,.1f}k"
print("| path | requests | I/O threads (IOLoop.run) per request | of which checker | of which recorder | Histogram.compact per request | per-second work per window |")
print("|---|---:|---:|---:|---:|---:|---:|")
for label, x in rows:
    if not x or not x["reqs"]:
        print(f"| {label} | n/a | | | | | |"); continue
    n = x["reqs"]
    per_window = k(x["stream"] / x["windows"]) if x["windows"] else "–"
    print(f"| {label} | {n} | {k(x['io'] / n)} | {k(x['checker'] / n)} | {k(x['record'] / n)} | {k(x['compact'] / n)} | {per_window} |")
j, e = rows[0][1], rows[-1][1]
if j and e and j["reqs"] and e["reqs"]:
    print()
    print(f"Journeys / engine, instructions per request on the I/O threads: {(j['io'] / j['reqs']) / (e['io'] / e['reqs']):.2f} ×.")
if before and len(rows) == 3 and rows[1][1] and j:
    b = rows[1][1]
    print(f"This binary / the --before binary, the journeys' I/O threads per request: {(j['io'] / j['reqs']) / (b['io'] / b['reqs']):.3f} ×;"
          f" per-second work per window: {(j['stream'] / j['windows']) / max(1, b['stream'] / b['windows']):.3f} ×.")
PY
} > "$section"
cat "$section"
bench_write_section instructions "$section"
echo "wrote bench/RESULTS.md (section instructions); raw outputs in $work" >&2
