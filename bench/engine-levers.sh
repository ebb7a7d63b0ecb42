#!/usr/bin/env bash
# bench/engine-levers.sh — what each of the engine's speed levers gives (Sources/FleetHTTP/
# EngineLevers.swift): `fleet blast -c 64` against loopback nginx with all levers on, with each
# one off in turn and with all off (the engine before issue 18), beside wrk in every round (wrk, variant, variant, …; PAIRS rounds). The figure is
# requests per client CPU-second as a ratio to wrk's in the same round: median (min–max).
# Goal (issue 18): 0.45 × wrk on an idle machine, with libcurl kept.
#
# With --before BIN, an older fleet binary (all levers on) joins the alternation as `before`.
#
#   bench/engine-levers.sh [-c CONNECTIONS] [-d SECONDS] [--before FLEET_BIN] [--loaded-ok]
#       (defaults 64 and 8; env PAIRS=3, LOAD_MAX, LOAD_WAIT, FLEET_BIN, PORT).
#       Takes about PAIRS × 9 × (SECONDS + 3) s: 5 min at the defaults.
set -euo pipefail
# shellcheck source=bench/peers.sh
source "$(dirname "$0")/peers.sh"

conns=64 duration=8 port=${PORT:-18091} before=
while [ $# -gt 0 ]; do
    case "$1" in
        -c) conns=$2; shift 2 ;;
        -d) duration=$2; shift 2 ;;
        --before) before=$2; shift 2 ;;
        --loaded-ok) LOADED_OK=1; shift ;;
        *) echo "usage: bench/engine-levers.sh [-c CONNECTIONS] [-d SECONDS] [--before FLEET_BIN] [--loaded-ok]" >&2; exit 2 ;;
    esac
done
ulimit -n 20000 2>/dev/null || true
bench_install
# (A mimalloc variant, dlopen'ed, was measured on 2026-12-01 and removed from the engine: no
# symbol is looked up at run time. Its figure stays in bench/RESULTS.md's 23:21 table.)
fleet=$(bench_fleet_bin)
bench_load_guard engine-levers || exit 3
work=$(mktemp -d /tmp/fleet-levers.XXXXXX)
BENCH_LOADLOG="$work/load.log"
trap 'bench_nginx_stop' EXIT
trap 'bench_nginx_stop; exit 130' INT TERM
bench_nginx_start "$port" "$work/nginx"
url="http://127.0.0.1:$port/"

# name → environment of the variant (all levers default to on).
declare -A envs=(
    [all_on]=""
    [alloc_libc]="FLEET_CURL_ALLOC=libc"
    [curlu_off]="FLEET_CURLU=0"
    [clock_fresh]="FLEET_HTTP_CLOCK=fresh"
    [epoll_eager]="FLEET_LAZY_EPOLL=0"
    [heap_off]="FLEET_HEAP_RESERVE=0"
    [all_off]="FLEET_CURL_ALLOC=libc FLEET_CURLU=0 FLEET_HTTP_CLOCK=fresh FLEET_INLINE_BODIES=0 FLEET_LAZY_EPOLL=0 FLEET_DRIVE_UPLOADS=0 FLEET_HEAP_RESERVE=0"
)
variants=(all_on alloc_libc curlu_off clock_fresh epoll_eager heap_off all_off)

one() {  # $1 = name, $2 = round, rest = command
    local name=$1 r=$2; shift 2
    timeout $((duration + 60)) /usr/bin/time -f '%U %S' -o "$work/$name.$r.time" "$@" > "$work/$name.$r.out" 2>&1 \
        || echo "   ($name exited $?; see $work/$name.$r.out)" >&2
    sleep 1
}
lever_wrk() { one wrk "$1" wrk -t1 -c"$conns" -d"${duration}s" "$url"; }
for v in "${variants[@]}"; do
    # shellcheck disable=SC2086
    eval "lever_$v() { one $v \"\$1\" env ${envs[$v]} \"$fleet\" blast \"$url\" -c $conns -d $duration; }"
done
if [ -n "$before" ]; then
    lever_before() { one before "$1" "$before" blast "$url" -c "$conns" -d "$duration"; }
    variants=(before "${variants[@]}")
fi
bench_alternate engine-levers lever_wrk "${variants[@]/#/lever_}"
bench_nginx_stop

section="$work/section.md"
{
    echo "## Engine levers: requests per client CPU-second, each lever off in turn"
    echo
    echo "Measured $(date -u '+%Y-%m-%d %H:%M UTC') on $(bench_machine) by \`bench/engine-levers.sh -c $conns -d $duration\` (PAIRS=$PAIRS)"
    echo "(loopback nginx, 13-byte body; wrk and every variant of \`fleet blast\` alternate, wrk first in each round;"
    echo "× wrk = requests per CPU-second over wrk's in the same round, median of the rounds with min–max)."
    bench_load_summary
    [ "$BENCH_LOADED" = 1 ] && echo "**Loaded: taken while other work shared the machine; provisional, not the figure.**"
    echo "Levers: \`FLEET_CURL_ALLOC\` = libcurl's allocator (pool = the engine's size-class free lists per thread,"
    echo "CCurlShim/alloc.c; libc = curl's default); \`FLEET_CURLU=0\` stops"
    echo "reusing each easy handle's parsed URL; \`FLEET_HTTP_CLOCK=fresh\` reads the clock in every curl timer callback;"
    echo "\`FLEET_INLINE_BODIES=0\` sends small bodies after the head (no variant of its own: blast's GETs have none);"
    echo "\`FLEET_LAZY_EPOLL=0\` takes a kept-alive socket out of epoll when curl stops watching it between requests"
    echo "(EPOLL_CTL_DEL, then ADD for the next); \`FLEET_HEAP_RESERVE=0\` skips the I/O threads' 16 MiB arena reservation."
    echo "all_off is the engine as it was before issue 18. Goal: 0.45 × wrk on an idle machine."
    echo
    python3 - "$work" "$PAIRS" "${variants[@]}" <<'PY'
import os, re, statistics, sys
work, pairs, variants = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
envs = {"before": "(the --before binary)", "all_on": "(defaults)", "alloc_libc": "FLEET_CURL_ALLOC=libc",
        "curlu_off": "FLEET_CURLU=0", "clock_fresh": "FLEET_HTTP_CLOCK=fresh",
        "epoll_eager": "FLEET_LAZY_EPOLL=0", "heap_off": "FLEET_HEAP_RESERVE=0",
        "all_off": "FLEET_CURL_ALLOC=libc FLEET_CURLU=0 FLEET_HTTP_CLOCK=fresh FLEET_INLINE_BODIES=0 FLEET_LAZY_EPOLL=0 FLEET_DRIVE_UPLOADS=0 FLEET_HEAP_RESERVE=0"}
def eff(name, r):
    try:
        out = open(os.path.join(work, f"{name}.{r}.out")).read()
        t = open(os.path.join(work, f"{name}.{r}.time")).read().split()
        n = int(re.search(r"(\d+) requests in", out).group(1))
        return n / (float(t[-2]) + float(t[-1]))
    except (OSError, AttributeError, ValueError, IndexError, ZeroDivisionError):
        return None
def spread(v):
    v = sorted(x for x in v if x is not None)
    return f"{statistics.median(v):.3f} ({v[0]:.3f}–{v[-1]:.3f})" if v else "n/a"
wrk = [eff("wrk", r) for r in range(1, pairs + 1)]
base = [eff("all_off", r) for r in range(1, pairs + 1)]
def reported(name):
    try: m = re.search(r"Engine levers: (.*)", open(os.path.join(work, f"{name}.1.out")).read())
    except OSError: m = None
    return m.group(1) if m else "n/a"
# With --before, each variant over the before binary in the same round as well.
bef = [eff("before", r) for r in range(1, pairs + 1)] if "before" in variants else None
print("| variant | environment | engine reports | req per client CPU-s (median) | × wrk, median (min–max) | × all_off, median (min–max) |"
      + (" × before, median (min–max) |" if bef else ""))
print("|---|---|---|---:|---:|---:|" + ("---:|" if bef else ""))
w = [x for x in wrk if x]
print(f"| wrk | | | {statistics.median(w):.0f} | 1 | |" if w else "| wrk | | | n/a | 1 | |", end=" |\n" if bef else "\n")
for v in variants:
    e = [eff(v, r) for r in range(1, pairs + 1)]
    good = [x for x in e if x]
    print(f"| {v} | `{envs.get(v, '')}` | {reported(v)} | {statistics.median(good):.0f} | " if good else f"| {v} | `{envs.get(v, '')}` | {reported(v)} | n/a | ", end="")
    print(f"{spread([a / b if a and b else None for a, b in zip(e, wrk)])} | {spread([a / b if a and b else None for a, b in zip(e, base)])} |", end="")
    print(f" {spread([a / b if a and b else None for a, b in zip(e, bef)])} |" if bef else "")
PY
} > "$section"
cat "$section"
bench_write_section engine-levers "$section"
echo "wrote bench/RESULTS.md (section engine-levers); raw outputs in $work" >&2
