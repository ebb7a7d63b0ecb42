#!/usr/bin/env bash
# bench/stack.sh — throughput of the reference stack on loopback: `GET /config` and `GET /home`
# (with a valid token) under wrk, and the daily-quest request mix (bench/quest.lua: sign in, home,
# session, reading, two rounds of presign + PUT + submit + polls, complete). Writes bench/RESULTS.md
# section "stack". The goal (issue 3): ≥ 20k req/s for GET /config on this 2-core machine.
#
#   bench/stack.sh [-d SECONDS] [-c CONNECTIONS]     (defaults 10 and 64; env FLEET_BIN)
set -euo pipefail
# shellcheck source=bench/peers.sh
source "$(dirname "$0")/peers.sh"

duration=10 conns=64
while [ $# -gt 0 ]; do
    case "$1" in
        -d) duration=$2; shift 2 ;;
        -c) conns=$2; shift 2 ;;
        *) echo "usage: bench/stack.sh [-d SECONDS] [-c CONNECTIONS]" >&2; exit 2 ;;
    esac
done
bench_install
fleet=$(bench_fleet_bin)
work=$(mktemp -d /tmp/fleet-stack-bench.XXXXXX)
clip="$BENCH_ROOT/audio-corpus/clips/en/en-daily-001-r1-en-us-s150.flac"
[ -f "$clip" ] || { echo "bench/stack.sh: missing $clip" >&2; exit 1; }
sha=$(sha256sum "$clip" | cut -d' ' -f1)

# Rate limiting off (one token drives all of wrk's connections); fast assessment so the mix
# measures the stack's request handling rather than the simulated service time.
"$fleet" stack --port 0 --entitlement active --rate-limit 0 --workers 16 --median-ms 20 --sigma 0 > "$work/stack.out" 2>&1 &
stack_pid=$!
trap 'kill -TERM $stack_pid 2>/dev/null || true; wait $stack_pid 2>/dev/null || true' EXIT
url=""
for _ in $(seq 1 100); do url=$(awk '/^READY /{print $2}' "$work/stack.out"); [ -n "$url" ] && break; sleep 0.1; done
[ -n "$url" ] || { echo "bench/stack.sh: the stack did not start" >&2; cat "$work/stack.out" >&2; exit 1; }
token=$(curl -sf -X POST "$url/auth/anonymous" -H 'Content-Type: application/json' \
    -d '{"install_id":"bench","timezone":"UTC","locale":"en-US","app_version":"1.4.0","platform":"ios"}' |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["access_token"])')
bench_load_guard stack || exit 3  # bench/lib.sh: LOAD_MAX, LOADED_OK=1 runs loaded
load_before=$(cut -d' ' -f1-3 /proc/loadavg)

run() {  # name, wrk args…
    local name=$1; shift
    echo "== $name" >&2
    timeout $((duration + 60)) wrk "$@" > "$work/$name.out" 2>&1 || true
    sleep 1
}
run config -t2 -c"$conns" -d"${duration}s" --latency "$url/config"
run home -t2 -c"$conns" -d"${duration}s" --latency -H "Authorization: Bearer $token" "$url/home"
run quest -t16 -c16 -d"${duration}s" --latency -s "$BENCH_ROOT/bench/quest.lua" "$url" -- "$clip" "$sha"

rps() { awk '/Requests\/sec/ {print int($2)}' "$work/$1.out"; }
p99() { awk '$1 == "99%" {print $2}' "$work/$1.out"; }
non2xx() { awk '/Non-2xx/ {print $5}' "$work/$1.out"; }
quests=$(awk '/^QUESTS/ {print $2}' "$work/quest.out")
table="$work/section.md"
{
    echo "## Reference stack throughput (wrk on loopback)"
    echo
    echo "Measured $(date -u '+%Y-%m-%d %H:%M') UTC on $(bench_machine) by \`bench/stack.sh -d $duration -c $conns\`"
    echo "(load average before: $load_before; the stack and wrk share the machine's cores)."
    echo
    echo "| load | connections | req/s | p99 | non-2xx |"
    echo "|---|---:|---:|---:|---:|"
    echo "| \`GET /config\` | $conns | $(rps config) | $(p99 config) | $(non2xx config) |"
    echo "| \`GET /home\` (valid token) | $conns | $(rps home) | $(p99 home) | $(non2xx home) |"
    echo "| daily-quest mix (bench/quest.lua) | 16 users | $(rps quest) | $(p99 quest) | $(non2xx quest) |"
    echo
    echo "Daily quests completed in the mix: ${quests:-0} in ${duration} s (each ≈ 15 requests: sign-in, home,"
    echo "session, reading, 2 × (presign, PUT, submit, polls every 50 ms), complete; assessment median 20 ms)."
    echo "Each PUT carries the corpus clip ($(stat -c %s "$clip") bytes, $(( $(stat -c %s "$clip") / 1024 )) KiB of FLAC) that the worker then"
    echo "decodes with libsndfile, so the mix is bound by upload hashing, blob writes and decoding, not by routing."
    echo
    echo "Commands (URL = the stack's READY address, started as \`fleet stack --port 0 --entitlement active --rate-limit 0 --workers 16 --median-ms 20 --sigma 0\`):"
    echo
    echo "    wrk -t2 -c$conns -d${duration}s --latency URL/config"
    echo "    wrk -t2 -c$conns -d${duration}s --latency -H 'Authorization: Bearer TOKEN' URL/home"
    echo "    wrk -t16 -c16 -d${duration}s --latency -s bench/quest.lua URL -- audio-corpus/clips/en/en-daily-001-r1-en-us-s150.flac SHA256"
} > "$table"
cat "$table"
bench_write_section stack "$table"
echo "wrote bench/RESULTS.md (section stack); raw outputs in $work" >&2
