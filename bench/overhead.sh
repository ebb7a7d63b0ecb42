#!/usr/bin/env bash
# bench/overhead.sh — what the journey layer (client, recorder, user state, checks, JSON) costs
# over the bare engine, per request, on the same requests.
#
# 1. Records: one `fleet run` as long as the measured ones, of 64 users walking the daily quest
#    with no think time (bench/overhead-profile.json's shape) against one `fleet stack`, with
#    FLEET_HTTP_RECORD writing every request the engine sent (method, URL, headers, body): the
#    replay has the journeys' mix (the table says which share of each was clip uploads).
# 2. Alternates (PAIRS rounds) the journeys — the same profile, `fleet run` — and the raw
#    engine — `fleet blast --replay` of the recording, the same endpoints, headers and body
#    sizes over keep-alive connections, as many at once as the journey run had in flight on
#    average. CPU per request: journeys = process CPU from when the users began (start-up left
#    out, bench/run_cpu.py) to the last active window's sample, over the requests; blast = its
#    own CPU line.
#    A third arm replays the same recording paced at the rate the journeys sent in the same round
#    (`-R`): flat out, the replay sends ~8 × faster, so its fixed costs per second (wake-ups,
#    timers, the monitor) fall on more requests; paced evenly, it wakes for every request. A fourth
#    sends the recording as it was recorded (`--as-recorded`: each user's requests in order, each
#    as long after the answer it followed as in the recording): the like-for-like arm, the goal's.
#    Each run's context switches (GNU time, whole process, per request): at this pace a request's
#    CPU is mostly what wake-ups and the kernel cost, and this column says whether the arms differ there.
#    The replay repeats requests whose effect already happened (a second reading-complete is a
#    409 envelope, not the session): its status mix is in the table.
# 3. Profiles round 1 of each with `perf record -g` (5 s while it runs; both arms alike, and the
#    median of the rounds leaves one perturbed round out) and writes the top shared objects and
#    symbols, and Fleet's functions by inclusive time: where the time goes.
# Goal (issue 18): the journey layer adds ≤ 25 % over the engine (ratio ≤ 1.25).
#
# With --before BIN, the journeys of an older fleet binary alternate too (before/after a fix).
#
#   bench/overhead.sh [-u USERS] [-d SECONDS] [--before FLEET_BIN] [--loaded-ok]  (defaults 64 users, 15 s; env PAIRS, LOAD_MAX,
#       LOAD_WAIT, FLEET_BIN). Takes about 30 s + PAIRS × 4 × (SECONDS + 10) s: 8 min at the defaults.
set -euo pipefail
# shellcheck source=bench/peers.sh
source "$(dirname "$0")/peers.sh"

users=64 duration=15 before=""
while [ $# -gt 0 ]; do
    case "$1" in
        --before) before=$2; shift 2 ;;  # a fleet binary from before a change: its journeys join the alternation
        -u) users=$2; shift 2 ;;
        -d) duration=$2; shift 2 ;;
        --loaded-ok) LOADED_OK=1; shift ;;
        *) echo "usage: bench/overhead.sh [-u USERS] [-d SECONDS] [--loaded-ok]" >&2; exit 2 ;;
    esac
done
ulimit -n 20000 2>/dev/null || true
fleet=$(bench_fleet_bin)
command -v perf >/dev/null || { apt-get -o DPkg::Lock::Timeout=300 install -y -qq linux-perf >/dev/null 2>&1 || true; }
bench_load_guard overhead || exit 3
work=$(mktemp -d /tmp/fleet-overhead.XXXXXX)
BENCH_LOADLOG="$work/load.log"

bench_stack_start "$fleet" "$work/stack.out" --entitlement active --workers 16 --median-ms 20 --sigma 0 --rate-limit 0 || exit 1
url=$BENCH_STACK_URL stack=$BENCH_STACK_PID

# No end-of-run audit (audit_max_s 0), as in bench/instructions.sh: its reads are a request sequence of
# their own after the walk. Until 2026-12-07 (twenty-seventh pass) the runs had it, and their requests
# (2 a user: 512 of ~4,800 a round) were counted while the CPU stopped at the last window with an
# active user, before the audit and the walk's last second: the journeys' CPU per request read low.
profile() {  # $1 = seconds
    bench_quest_profile overhead 3 "$1" "$users" 5 '"checks": {"audit_s": 0, "audit_max_s": 0},'
}
# The recording walks as long as the measured runs and keeps every request: the replay then has
# their mix. Until 2026-12-05 it kept an 8 s walk (at most 3,000 requests), whose mix leaned on the
# quest's first steps (config, sign-in, home) and held a different share of clip uploads, the
# requests that cost the most sends (16 KiB pieces): 10.1 % of the replayed requests against
# 13.2 % of the 64-user journeys' (strace, 2026-12-05), which made the engine's requests cheaper on average.
profile "$duration" > "$work/record.json"
profile "$duration" > "$work/run.json"

echo "== recording the journeys' requests" >&2
bench_record_requests "$fleet" "$url" "$work" "$work/record.json" 200000 || exit 1
conns=$(python3 - "$work" <<'PY'
import glob, json, sys
f = glob.glob(sys.argv[1] + "/record/**/results.json", recursive=True)
h = [s for s in json.load(open(f[0]))["health"] if s.get("activeUsers", 0) > 0] if f else []
print(max(1, round(sum(s["inFlight"] for s in h) / len(h))) if h else 8)
PY
)
echo "   $(wc -l < "$work/rec.jsonl") requests recorded; the journeys had $conns in flight on average" >&2

# Each run under GNU time for its context switches (voluntary, then involuntary: `%w %c`), whole process.
[ -x /usr/bin/time ] || bench_install
timed=(/usr/bin/time -f "%w %c" -o)

# perf for 5 s of the run, 3 s after it started (round 1 only).
profile_pid() {  # $1 = pid of `timeout`, whose child is the bench; $2 = output
    sleep 3
    local child=$1 next  # the bench: the deepest descendant (timeout, then /usr/bin/time, then fleet)
    while next=$(pgrep -P "$child" | head -1) && [ -n "$next" ]; do child=$next; done
    [ "$child" = "$1" ] && child=
    [ -n "$child" ] && timeout 20 perf record -F 999 -g -p "$child" -o "$2" -- sleep 5 > /dev/null 2>&1 < /dev/null || true
}

run_journeys() {  # $1 = fleet binary, $2 = name (j, j0), $3 = round
    local bin=$1 name=$2 r=$3 seed
    # A seed of its own per run (as the recording had): the same seed would sign the same installs
    # in again, whose quest of the day the stack already holds as done — a shorter, cheaper walk
    # each round (before this, rounds 1-3 sent 6k, 8k and 11k requests).
    seed=$((1000 + 10 * r + ${#name}))
    sed "s/\"seed\": 3,/\"seed\": $seed,/" "$work/run.json" > "$work/run.$name.$r.json"
    # The --before binary keeps its own corpus check cache: a binary that stamps clips otherwise
    # (before 2026-12-07: the mtime through a Double) would make each arm re-check all of them.
    (cd "$BENCH_ROOT" && { [ "$name" = j ] || export FLEET_CACHE_DIR="$work/cache-$name"; } && exec timeout $((duration + 60)) "${timed[@]}" "$work/$name.$r.cs" "$bin" run --profile "$work/run.$name.$r.json" \
        --target "$url" --out "$work/$name-$r" --history "$work/h.sqlite" > "$work/$name.$r.out" 2>&1) &
    local pid=$! prof=
    if [ "$r" = 1 ] && command -v perf >/dev/null; then profile_pid "$pid" "$work/perf-$name.data" & prof=$!; fi
    wait "$pid" || echo "   ($name round $r exited $?; see $work/$name.$r.out)" >&2
    [ -z "$prof" ] || wait "$prof" || true
}
ov_journeys() { run_journeys "$fleet" j "$1"; }
ov_before() { run_journeys "$before" j0 "$1"; }
ov_engine() {
    local r=$1
    timeout $((duration + 60)) "${timed[@]}" "$work/e.$r.cs" "$fleet" blast "$url" --replay "$work/rec.jsonl" -c "$conns" -d "$duration" \
        > "$work/e.$r.out" 2>&1 &
    local pid=$! prof=
    if [ "$r" = 1 ] && command -v perf >/dev/null; then profile_pid "$pid" "$work/perf-engine.data" & prof=$!; fi
    wait "$pid" || echo "   (replay round $r exited $?; see $work/e.$r.out)" >&2
    [ -z "$prof" ] || wait "$prof" || true
}
# The same replay paced at the rate the journeys sent in the same round (they run just before it):
# the flat-out replay above sends ~8 × faster, which spreads the engine's fixed costs (wake-ups,
# timers, the per-second monitor) over more requests than the journeys' pace allows.
journey_rate() {  # $1 = round: the journeys' requests per second over their active windows
    python3 - "$work/j-$1" <<'PY'
import glob, json, sys
f = glob.glob(sys.argv[1] + "/**/results.json", recursive=True)
if not f: print(0); sys.exit()
r = json.load(open(f[0]))
act = [s for s in r["health"] if s.get("activeUsers", 0) > 0]
n = sum(sum(e.get("statuses", {}).values()) for e in r["endpoints"])
print(round(n / max(1, len(act))))
PY
}
ov_paced() {
    local r=$1 rate; rate=$(journey_rate "$r")
    [ "$rate" -gt 0 ] || { echo "   (paced replay round $r: no journey rate)" >&2; return; }
    echo "$rate" > "$work/p.$r.rate"
    timeout $((duration + 60)) "${timed[@]}" "$work/p.$r.cs" "$fleet" blast "$url" --replay "$work/rec.jsonl" -c "$conns" -R "$rate" \
        -d "$duration" > "$work/p.$r.out" 2>&1 || echo "   (paced replay round $r exited $?; see $work/p.$r.out)" >&2
}
# The same recording sent as it was recorded (`--as-recorded`): each user's chain of requests in
# order, each as long after the answer (or send) it followed as in the journeys' own run, over as
# many connections as there were users. Flat out, the engine amortizes its wake-ups over more
# requests a second; paced evenly, it wakes for every request where the journeys send bursts (a
# user's next request right after an answer): this arm has neither skew, so it is the like-for-like
# one (added 2026-12-07, twenty-seventh pass).
ov_recorded() {
    local r=$1
    timeout $((duration + 60)) "${timed[@]}" "$work/r.$r.cs" "$fleet" blast "$url" --replay "$work/rec.jsonl" --as-recorded \
        -c "$users" -d "$duration" > "$work/r.$r.out" 2>&1 || echo "   (as-recorded replay round $r exited $?; see $work/r.$r.out)" >&2
}
arms=(ov_journeys ov_recorded ov_engine ov_paced)
[ -n "$before" ] && arms=(ov_before ov_journeys ov_recorded ov_engine ov_paced)
bench_alternate overhead "${arms[@]}"
kill "$stack" 2>/dev/null || true

perf_fleet() {  # $1 = data file: Fleet's own functions by inclusive time
    [ -s "$1" ] || { echo "    (no profile)"; return; }
    local demangle; demangle=$(command -v swift-demangle || echo cat)
    timeout 120 perf report -i "$1" --children --sort sym --stdio -g none < /dev/null 2>/dev/null | grep -v '^#' \
        | grep -E '\$s[0-9]+Fleet' | "$demangle" --simplified 2>/dev/null | head -30 | sed -E 's/^(.{0,170}).*/    \1/' || true
}

perf_top() {  # $1 = data file: the top shared objects and symbols (self time)
    [ -s "$1" ] || { echo "    (no profile)"; return; }
    timeout 120 perf report -i "$1" --no-children --sort dso --stdio -g none < /dev/null 2>/dev/null | grep -v '^#' | grep -v '^$' | head -8 | sed 's/^/    /' || true
    echo
    timeout 120 perf report -i "$1" --no-children --sort sym --stdio -g none < /dev/null 2>/dev/null | grep -v '^#' | grep -v '^$' | head -25 \
        | sed -E 's/^(.{0,150}).*/    \1/' || true
}

section="$work/section.md"
{
    echo "## Journey-layer overhead per request: the journeys against the bare engine on the same requests"
    echo
    echo "Measured $(date -u '+%Y-%m-%d %H:%M UTC') on $(bench_machine) by \`bench/overhead.sh -u $users -d $duration\` (PAIRS=$PAIRS)"
    echo "($users users walk the daily quest with no think time against \`fleet stack --median-ms 20\`; the raw engine replays"
    echo "every request of a recorded walk as long as the measured ones (\`FLEET_HTTP_RECORD\`, \`fleet blast --replay\`) over $conns keep-alive connections,"
    echo "the journeys' mean in-flight count; CPU per request of the bench process; context switches per request of the whole"
    echo "process (GNU time: voluntary = it waited, preempted = another thread took the core); median of $PAIRS alternated rounds (min–max)."
    echo "The as-recorded arm sends each user's requests of the recording in order, each as long after the answer it followed"
    echo "as in the recording (\`--as-recorded\`, at most $users connections): the journeys' requests at the journeys' times. The journey"
    echo "runs have no end-of-run audit; their CPU runs to the sample taken when the walk ended.)"
    bench_load_summary
    [ "$BENCH_LOADED" = 1 ] && echo "**Loaded: taken while other work shared the machine; provisional, not the figure.**"
    echo "Each journey run has a seed of its own (since 2026-12-02): the 2026-12-01 figure (190.5 against 118.7 µs, 1.98 ×)"
    echo "reused one seed, so its rounds 2 and 3 signed the same installs in again and walked a shorter quest (6k, 8k, 11k"
    echo "requests a round), which made the journeys cheaper per request round by round; the two are not comparable."
    echo
    python3 - "$work" "$PAIRS" "$users" <<'PY'
import glob, json, os, re, statistics, sys
sys.path.insert(0, os.path.join(os.environ["BENCH_ROOT"], "bench"))
from run_cpu import how_line, walking_cpu_start
work, pairs, users = sys.argv[1], int(sys.argv[2]), sys.argv[3]
hows = []
def journeys(r, name="j", estimate=False):
    f = glob.glob(os.path.join(work, f"{name}-{r}", "**", "results.json"), recursive=True)
    if not f: return None
    res = json.load(open(f[0]))
    h = sorted(res["health"], key=lambda s: s["window"])
    act = [i for i, s in enumerate(h) if s.get("activeUsers", 0) > 0]
    if not act: return None
    c0, how = walking_cpu_start(res, h, act[0], estimate)
    if not estimate: hows.append(how)
    # To the last sample, taken when the walk (and its drain) ended: every request counted below
    # was answered by then, and with no audit nothing else ran in between.
    cpu = h[-1]["cpuSeconds"] - c0
    statuses = {}
    for e in res["endpoints"]:
        for k, v in e.get("statuses", {}).items(): statuses[k] = statuses.get(k, 0) + v
    n = sum(statuses.values())
    return dict(cpu=cpu, n=n, per=cpu / n * 1e6 if n else None, statuses=statuses)
def engine(r, name="e"):
    try: out = open(os.path.join(work, f"{name}.{r}.out")).read()
    except OSError: return None
    m = re.search(r"(\d+) requests in", out); c = re.search(r"CPU: ([\d.]+) s", out)
    non = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    if not m or not c: return None
    n, cpu = int(m.group(1)), float(c.group(1))
    return dict(cpu=cpu, n=n, per=cpu / n * 1e6 if n else None, non2xx=int(non.group(1)) if non else 0)
def switches(name, r, n):
    """Context switches per request, whole process: (voluntary, involuntary) from GNU time."""
    try: w, c = (int(x) for x in open(os.path.join(work, f"{name}.{r}.cs")).read().split()[-2:])
    except (OSError, ValueError): return None
    return (w / n, c / n) if n else None
def cs_cell(name, runs):
    v = [switches(name, r, x["n"]) if x else None for r, x in enumerate(runs, 1)]
    if not any(v): return "n/a"
    vol = [x[0] for x in v if x]; inv = [x[1] for x in v if x]; tot = [a + b for a, b in zip(vol, inv)]
    return f"{spread(tot, '%.2f')}: {statistics.median(vol):.2f} + {statistics.median(inv):.2f}"
J = [journeys(r) for r in range(1, pairs + 1)]; E = [engine(r) for r in range(1, pairs + 1)]
def spread(v, fmt="%.1f"):
    v = sorted(x for x in v if x is not None)
    return f"{fmt % statistics.median(v)} ({fmt % v[0]}–{fmt % v[-1]})" if v else "n/a"
print("| path | requests per round | CPU µs per request, median (min–max) | context switches per request, whole process: median (min–max): voluntary + preempted | answers |")
print("|---|---|---:|---:|---|")
js = J[0]["statuses"] if J[0] else {}
print(f"| journeys (fleet run, dailyQuest) | {', '.join(str(x['n']) if x else 'n/a' for x in J)} | {spread([x['per'] if x else None for x in J])} | {cs_cell('j', J)} | "
      + ", ".join(f"{k}: {v}" for k, v in sorted(js.items())) + " |")
print(f"| raw engine (fleet blast --replay) | {', '.join(str(x['n']) if x else 'n/a' for x in E)} | {spread([x['per'] if x else None for x in E])} | {cs_cell('e', E)} | "
      + (f"non-2xx: {E[0]['non2xx']} of {E[0]['n']}" if E[0] else "n/a") + " |")
P = [engine(r, "p") for r in range(1, pairs + 1)]
def rate(r):
    try: return open(os.path.join(work, f"p.{r}.rate")).read().strip()
    except OSError: return "n/a"
print(f"| raw engine paced at the journeys' rate (--replay -R, {'/'.join(rate(r) for r in range(1, pairs + 1))} req/s) | "
      f"{', '.join(str(x['n']) if x else 'n/a' for x in P)} | {spread([x['per'] if x else None for x in P])} | {cs_cell('p', P)} | "
      + (f"non-2xx: {P[0]['non2xx']} of {P[0]['n']}" if P[0] else "n/a") + " |")
R = [engine(r, "r") for r in range(1, pairs + 1)]
print(f"| raw engine as recorded (--replay --as-recorded, {users} connections at most) | "
      f"{', '.join(str(x['n']) if x else 'n/a' for x in R)} | {spread([x['per'] if x else None for x in R])} | {cs_cell('r', R)} | "
      + (f"non-2xx: {R[0]['non2xx']} of {R[0]['n']}" if R[0] else "n/a") + " |")
B = [journeys(r, "j0") for r in range(1, pairs + 1)]
if any(B):
    print(f"| journeys, before (--before binary) | {', '.join(str(x['n']) if x else 'n/a' for x in B)} | {spread([x['per'] if x else None for x in B])} | {cs_cell('j0', B)} | |")
def upload_shares():
    """Clip uploads (the requests that take the most sends) among the journeys' requests, round 1,
    and among the recording the replay sends: the two arms' mixes should match."""
    j = None
    f = glob.glob(os.path.join(work, "j-1", "**", "results.json"), recursive=True)
    if f:
        eps = json.load(open(f[0]))["endpoints"]
        n = sum(sum(e.get("statuses", {}).values()) for e in eps)
        up = sum(sum(e.get("statuses", {}).values()) for e in eps if e["name"].startswith("PUT upload"))
        j = up / n if n else None
    rec = [json.loads(line) for line in open(os.path.join(work, "rec.jsonl"))]
    r = sum(1 for x in rec if x["method"] == "PUT" and "/uploads/" in x["url"]) / len(rec) if rec else None
    return j, r, len(rec)
ju, ru, nrec = upload_shares()
print()
print(f"Request mix: clip uploads are {ju * 100:.1f} % of the journeys' requests (round 1) and {ru * 100:.1f} % of the "
      f"{nrec} recorded requests the replay cycles through." if ju is not None and ru is not None else "Request mix: n/a")
def verdict(J, X, what):
    v = [j["per"] / x["per"] for j, x in zip(J, X) if j and x and j["per"] and x["per"]]
    m = statistics.median(v) if v else None
    print(f"{what}: {spread(v, '%.2f')} × — the journey layer adds " + (f"{(m - 1) * 100:.0f} %" if m else "n/a")
          + " (goal ≤ 25 %: " + ("met" if m and m <= 1.25 else "not met") + ").")
print()
verdict(J, R, "Journeys / engine as recorded (the same requests at the journeys' own times; the like-for-like arm), CPU per request, per round")
verdict(J, E, "Journeys / engine flat out (it sends ~8 × faster and spreads its fixed costs wider)")
verdict(J, P, "Journeys / engine paced evenly at the journeys' rate (it wakes for every request)")
print(how_line(hows))
if any(B):
    # The estimate over- or under-takes window 1's own CPU (its first requests are not the next
    # window's): before and after compare only with start-up taken alike.
    Je = [journeys(r, estimate=True) for r in range(1, pairs + 1)]
    Be = [journeys(r, "j0", estimate=True) for r in range(1, pairs + 1)]
    ab = [j["per"] / b["per"] for j, b in zip(Je, Be) if j and b and j["per"] and b["per"]]
    print(f"Journeys after / before, start-up estimated alike for both: {spread([x['per'] for x in Je if x], '%.1f')} against "
          f"{spread([x['per'] for x in Be if x], '%.1f')} µs per request, {spread(ab, '%.3f')} × per round.")
PY
    echo
    echo "Where the time goes (perf record -g, 5 s of round 1, self time; journeys first, then the raw engine):"
    echo
    if [ -n "$before" ]; then
        echo "Journeys, before:"
        echo
        perf_top "$work/perf-j0.data"
        echo
    fi
    echo "Journeys:"
    echo
    perf_top "$work/perf-j.data"
    echo
    echo "Raw engine:"
    echo
    perf_top "$work/perf-engine.data"
    echo
    echo "Inclusive time (with callees) of the journeys' own functions, top 30 (perf --children, demangled):"
    echo
    [ -n "$before" ] && { echo "Before:"; echo; perf_fleet "$work/perf-j0.data"; echo; echo "After:"; echo; }
    perf_fleet "$work/perf-j.data"
} > "$section"
cat "$section"
bench_write_section overhead "$section"
echo "wrote bench/RESULTS.md (section overhead); raw outputs in $work" >&2
