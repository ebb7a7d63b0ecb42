#!/usr/bin/env bash
# bench/syscalls.sh — system calls per request of two fleet binaries walking the same daily quest
# as bench/peers-journey.sh (200 users arriving over 10 s, 2,000 ms thinks × 0.1, one
# `fleet stack --median-ms 400` on loopback), each under `strace -f -c`. Counts, unlike CPU time
# on this host, hardly move between runs, so they show what a change to the engine's system calls
# did (issue 18's levers: lazy epoll removal, the arena reservation, the no-proxy list) where a
# CPU-time A/B would need dozens of pairs to see 2 %. The whole process is counted, start-up and
# report included; the per-request columns divide by the run's requests.
#
#   bench/syscalls.sh BIN_A BIN_B [-u USERS] [--loaded-ok]   (env PAIRS (default 2), LOAD_MAX,
#       LOAD_WAIT). Takes about PAIRS × 2 × 35 s.
set -euo pipefail
pairs=${PAIRS:-2}
# shellcheck source=bench/peers.sh
source "$(dirname "$0")/peers.sh"
PAIRS=$pairs

[ $# -ge 2 ] || { echo "usage: bench/syscalls.sh BIN_A BIN_B [-u USERS] [--loaded-ok]" >&2; exit 2; }
A=$1 B=$2; shift 2
for bin in "$A" "$B"; do [ -x "$bin" ] || { echo "bench/syscalls.sh: $bin: not an executable fleet binary" >&2; exit 2; }; done
users=200
while [ $# -gt 0 ]; do
    case "$1" in
        -u) users=$2; shift 2 ;;
        --loaded-ok) LOADED_OK=1; shift ;;
        *) echo "usage: bench/syscalls.sh BIN_A BIN_B [-u USERS] [--loaded-ok]" >&2; exit 2 ;;
    esac
done
command -v strace >/dev/null || { echo "bench/syscalls.sh: strace is not installed (apt-get install strace)" >&2; exit 2; }
ulimit -n 20000 2>/dev/null || true
bench_load_guard syscalls || exit 3
work=$(mktemp -d /tmp/fleet-syscalls.XXXXXX)
BENCH_LOADLOG="$work/load.log"
bench_stack_start "$A" "$work/stack.out" --entitlement active --workers 16 --median-ms 400 --sigma 0.4 --rate-limit 0 || exit 1
url=$BENCH_STACK_URL

bench_once_quest_profile syscalls "$users" 10 2000 0.1 120 > "$work/quest.json"

run_one() {  # $1 = A|B, $2 = round; a seed of its own per run (the stack keeps each install's quest)
    local x=$1 r=$2 bin=$A seed=$((8000 + 10 * $2))
    [ "$x" = B ] && bin=$B seed=$((seed + 1))
    sed "s/\"seed\": 7,/\"seed\": $seed,/" "$work/quest.json" > "$work/quest.$x.$r.json"
    (cd "$BENCH_ROOT" && timeout 240 strace -f -c -o "$work/$x.$r.strace" "$bin" run --profile "$work/quest.$x.$r.json" \
        --target "$url" --out "$work/$x-$r" --history "$work/h.sqlite" > "$work/$x.$r.out" 2>&1) \
        || echo "   ($x round $r exited $?; see $work/$x.$r.out)" >&2
}
bench_alternate_swapped syscalls run_one

section="$work/section.md"
{
    echo "## System calls per request, two binaries (bench/syscalls.sh)"
    echo
    echo "Measured $(date -u '+%Y-%m-%d %H:%M') UTC on $(bench_machine) by \`bench/syscalls.sh A B -u $users\` (PAIRS=$PAIRS)"
    echo "($users users walk the daily quest once, as in bench/peers-journey.sh, each binary under \`strace -f -c\`; whole"
    echo "process, start-up and report included; per request = calls over the run's requests, median of the rounds.)"
    echo "A = \`$A\`, B = \`$B\`."
    bench_load_summary "$BENCH_LOADLOG"
    echo
    python3 - "$work" "$PAIRS" <<'PY'
import glob, json, os, re, statistics, sys
work, pairs = sys.argv[1], int(sys.argv[2])
def counts(x, r):
    p = os.path.join(work, f"{x}.{r}.strace")
    f = glob.glob(os.path.join(work, f"{x}-{r}", "**", "results.json"), recursive=True)
    if not os.path.exists(p) or not f: return None
    res = json.load(open(f[0]))
    n = sum(sum(e["statuses"].values()) for e in res["endpoints"])
    c = {}
    for line in open(p):
        m = re.match(r"\s*[\d.]+\s+[\d.]+\s+\d+\s+(\d+)\s+(?:\d+\s+)?(\w+)\s*$", line)
        if m: c[m.group(2)] = int(m.group(1))
    return (n, c) if n else None
runs = {x: [v for v in (counts(x, r) for r in range(1, pairs + 1)) if v] for x in "AB"}
if not runs["A"] or not runs["B"]:
    print("(no complete run to compare)"); sys.exit()
names = ["epoll_ctl", "mprotect", "madvise", "epoll_pwait2", "epoll_wait", "sendto", "recvfrom", "poll", "futex", "total"]
def per(x, name):
    v = [c.get(name, 0) / n for n, c in runs[x]]
    return statistics.median(v)
print("| system call | A per request | B per request | B − A |")
print("|---|---:|---:|---:|")
for name in names:
    a, b = per("A", name), per("B", name)
    print(f"| {name} | {a:.3f} | {b:.3f} | {b - a:+.3f} |")
print()
print("Requests per run: A " + ", ".join(str(n) for n, _ in runs["A"]) + "; B " + ", ".join(str(n) for n, _ in runs["B"]) + ".")
PY
} > "$section"
cat "$section"
bench_write_section syscalls "$section"
echo "wrote bench/RESULTS.md (section syscalls); raw outputs in $work" >&2
