#!/usr/bin/env bash
# bench/scale-blast.sh — how `fleet blast` holds up as connections grow (64, 512, 2,000), beside
# wrk at the same counts, against loopback nginx; writes bench/RESULTS.md section "scale-blast".
# The goal (issue 8): throughput at 2,000 connections ≥ 0.5 × throughput at 64.
#
#   bench/scale-blast.sh [-d SECONDS] [-t IO_THREADS]     (defaults 10 and 1; env FLEET_BIN, PORT)
set -euo pipefail
# shellcheck source=bench/peers.sh
source "$(dirname "$0")/peers.sh"

duration=10 threads=1 port=${PORT:-18090}
while [ $# -gt 0 ]; do
    case "$1" in
        -d) duration=$2; shift 2 ;;
        -t) threads=$2; shift 2 ;;
        *) echo "usage: bench/scale-blast.sh [-d SECONDS] [-t IO_THREADS]" >&2; exit 2 ;;
    esac
done
ulimit -n 20000
bench_install
fleet=$(bench_fleet_bin)
work=$(mktemp -d /tmp/fleet-scale.XXXXXX)
trap 'bench_nginx_stop' EXIT
trap 'bench_nginx_stop; exit 130' INT TERM
bench_nginx_start "$port" "$work/nginx"
url="http://127.0.0.1:$port/"
bench_load_guard scale-blast || exit 3  # bench/lib.sh: LOAD_MAX, LOADED_OK=1 runs loaded
load_before=$(cut -d' ' -f1-3 /proc/loadavg)

for c in 64 512 2000; do
    echo "== fleet blast -c $c -t $threads" >&2
    timeout $((duration + 60)) /usr/bin/time -f '%U %S' -o "$work/fleet-$c.time" \
        "$fleet" blast "$url" -c "$c" -d "$duration" -t "$threads" > "$work/fleet-$c.out" 2>&1 || true
    sleep 1
    echo "== wrk -c $c" >&2
    timeout $((duration + 60)) /usr/bin/time -f '%U %S' -o "$work/wrk-$c.time" \
        wrk -t1 -c"$c" -d"${duration}s" --latency "$url" > "$work/wrk-$c.out" 2>&1 || true
    sleep 1
done
bench_nginx_stop

section="$work/section.md"
{
    echo "## Scale: \`fleet blast\` at 64, 512 and 2,000 connections"
    echo
    echo "Measured $(date -u '+%Y-%m-%d %H:%M UTC') on $(bench_machine) by \`bench/scale-blast.sh -d $duration -t $threads\`"
    echo "(loopback nginx, 1 worker, 13-byte body; wrk -t1 at the same counts for reference)."
    echo "Load average when the run started: $load_before (1/5/15 min)."
    echo
    python3 - "$work" <<'PY'
import re, sys, os
work = sys.argv[1]
def parse(name):
    out = open(os.path.join(work, name + ".out"), errors="replace").read() if os.path.exists(os.path.join(work, name + ".out")) else ""
    req = re.search(r"(\d+) requests in ([\d.]+)s", out)
    p99 = re.search(r"^\s*99%\s+([\d.]+)(us|ms|s)", out, re.M)
    try:
        u, s = open(os.path.join(work, name + ".time")).read().split()[-2:]
        cpu = float(u) + float(s)
    except Exception:
        cpu = None
    n = int(req.group(1)) if req else None
    rps = n / float(req.group(2)) if req else None
    p = None
    if p99:
        v, unit = float(p99.group(1)), p99.group(2)
        p = v / 1000 if unit == "us" else v * 1000 if unit == "s" else v
    return n, rps, cpu, p
print("| connections | blast req/s | × blast@64 | blast CPU s per 1,000 req | blast p99 ms | wrk req/s | wrk CPU s per 1,000 req |")
print("|---:|---:|---:|---:|---:|---:|---:|")
base = None
for c in (64, 512, 2000):
    n, rps, cpu, p = parse(f"fleet-{c}")
    wn, wrps, wcpu, _ = parse(f"wrk-{c}")
    if c == 64: base = rps
    f = lambda v, fmt: (fmt % v) if v is not None else "n/a"
    rel = rps / base if rps and base else None
    print(f"| {c} | {f(rps, '%.0f')} | {f(rel, '%.2f')} | {f(cpu * 1000 / n if cpu and n else None, '%.4f')} | {f(p, '%.2f')} | {f(wrps, '%.0f')} | {f(wcpu * 1000 / wn if wcpu and wn else None, '%.4f')} |")
PY
} > "$section"
cat "$section"
bench_write_section scale-blast "$section"
echo "wrote bench/RESULTS.md (section scale-blast); raw outputs in $work" >&2
