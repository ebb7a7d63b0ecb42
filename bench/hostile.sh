#!/usr/bin/env bash
# bench/hostile.sh — the 200-user smoke run through scripts/hostile_proxy.py, which forwards every
# request to a real reference stack once and mangles a fraction of the answers (default a fifth;
# every kind of the proxy, on API routes and upload URLs). Issue 16's bar: the run ends within its
# bound, every mangled kind shows up as counted errors, ≥ 90 % of the journeys complete, the bench
# stays under 300 MB resident, and the proxy saw no malformed request. Writes bench/RESULTS.md
# section "hostile"; exits 1 when a bar is missed.
#
#   bench/hostile.sh [-f FRACTION] [-s SEED]      (defaults 0.2 and 16; env FLEET_BIN)
set -euo pipefail
# shellcheck source=bench/peers.sh
source "$(dirname "$0")/peers.sh"

fraction=0.2 seed=16
while [ $# -gt 0 ]; do
    case "$1" in
        -f) fraction=$2; shift 2 ;;
        -s) seed=$2; shift 2 ;;
        *) echo "usage: bench/hostile.sh [-f FRACTION] [-s SEED]" >&2; exit 2 ;;
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

# The smoke profile's stack settings (entitlement active for the subscriber cohort).
"$fleet" stack --port 0 --entitlement active --workers 16 --median-ms 400 --sigma 0.4 --duration 600 \
    > "$work/stack.out" 2>&1 &
pids+=($!)
stack_url=$(wait_ready "$work/stack.out")
python3 "$BENCH_ROOT/scripts/hostile_proxy.py" --upstream "$stack_url" --fraction "$fraction" --seed "$seed" \
    --stats "$work/proxy.json" --duration 600 > "$work/proxy.out" 2> "$work/proxy.err" &
pids+=($!)
proxy_url=$(wait_ready "$work/proxy.out")
load_before=$(cut -d' ' -f1-3 /proc/loadavg)

set +e
/usr/bin/time -v -o "$work/time.txt" timeout 240 "$fleet" run --profile "$BENCH_ROOT/profiles/hostile.json" \
    --target "$proxy_url" --out "$work/reports" > "$work/run.out" 2>&1
run_exit=$?
set -e
sleep 1.5  # the proxy writes its counts every second

table="$work/section.md"
set +e
python3 - "$work" "$run_exit" "$fraction" "$seed" "$load_before" "$(bench_machine)" > "$table" <<'EOF'
import glob, json, re, sys
work, run_exit, fraction, seed, load_before, machine = sys.argv[1:7]
proxy = json.load(open(f"{work}/proxy.json"))
res_path = glob.glob(f"{work}/reports/*/results.json")
res = json.load(open(res_path[0])) if res_path else {}
time_txt = open(f"{work}/time.txt").read()
rss_mb = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", time_txt).group(1)) / 1024
wall = re.search(r"Elapsed \(wall clock\) time.*: (.*)", time_txt).group(1)
codes = {}
for e in res.get("endpoints", []):
    for k, v in e.get("errorCodes", {}).items():
        codes[k] = codes.get(k, 0) + v
journeys = [j for j in res.get("journeys", []) if j["journey"] != "warmup"]
warm = [j for j in res.get("journeys", []) if j["journey"] == "warmup"]
started = sum(j["started"] for j in journeys)
completed = sum(j["completed"] for j in journeys)
wstarted = sum(j["started"] for j in warm)
wcompleted = sum(j["completed"] for j in warm)
users = 200
pct = 100.0 * completed / users
counters = res.get("counters", {})
# Which client-side kind each mangling should show up as (legal ones: none).
expect = {"garbage_json": "bad_json", "bad_utf8": "bad_utf8", "truncated": "truncated", "reset": "reset",
          "slow_drip": "timeout", "stall": "timeout", "huge_body": "body_too_large",
          "huge_header": "header_too_large", "no_status_line": "protocol_error", "cl_short": "bad_json",
          "cl_long": "truncated", "redirect_loop": "unexpected_status", "fake_gzip": "protocol_error",
          "http10_close": None, "early_100": None, "dup_cl": "protocol_error"}
bars = {
    "ended within its bound (exit 0/99, ≤ 150 s + shutdown)": run_exit in ("0", "99"),
    "≥ 90 % of the 200 users' journeys completed": pct >= 90,
    "under 300 MB resident": rss_mb < 300,
    "no malformed request reached the proxy": proxy["malformed_requests"] == 0,
    "every request reached the stack once": proxy["requests"] == proxy["forwarded"] and proxy["upstream_errors"] == 0,
    "every client-side kind counted": all(codes.get(v, 0) > 0 for v in expect.values() if v),
    "every mangling kind used, on uploads too": all(m["api"] > 0 for m in proxy["mangled"].values())
        and sum(m["upload"] for m in proxy["mangled"].values()) > 0,
}
print("## Hostile server: the smoke run through scripts/hostile_proxy.py")
print()
print(f"Measured {__import__('datetime').datetime.utcnow():%Y-%m-%d %H:%M} UTC on {machine} by "
      f"`bench/hostile.sh -f {fraction} -s {seed}` (load average before: {load_before}). "
      "`profiles/hostile.json` (200 daily-quest users over 20 s, bounded at 150 s) against the proxy, which "
      "forwards every request to `fleet stack --entitlement active --workers 16 --median-ms 400 --sigma 0.4` "
      f"and mangles a seeded {float(fraction):.0%} of the answers.")
print()
print("| bar | result |")
print("|---|---|")
for k, ok in bars.items():
    print(f"| {k} | {'yes' if ok else '**no**'} |")
print()
print(f"- run exit {run_exit}, wall {wall}, max RSS {rss_mb:.0f} MB (`/usr/bin/time -v`)")
print(f"- journeys: {completed} of {users} users completed the daily quest ({pct:.1f} %); started {started}; "
      f"cohort warm-ups {wcompleted}/{wstarted}")
print(f"- proxy: {proxy['requests']} requests, {proxy['forwarded']} forwarded, {proxy['mangled_total']} mangled, "
      f"{proxy['malformed_requests']} malformed requests; client retries {counters.get('retries', 0)}, "
      f"out of patience {counters.get('retries_out_of_patience', 0)}")
print()
print("| mangling | API answers | upload answers | counted by the client as | client count (all endpoints) |")
print("|---|---:|---:|---|---:|")
for k, m in proxy["mangled"].items():
    e = expect[k]
    print(f"| `{k}` | {m['api']} | {m['upload']} | {('`' + e + '`') if e else 'success (legal HTTP)'} | "
          f"{codes.get(e, 0) if e else '–'} |")
print()
print("Client error codes over the run: " + ", ".join(f"`{k}` {v}" for k, v in sorted(codes.items())))
sys.exit(0 if all(bars.values()) else 1)
EOF
verdict=$?
set -e
cat "$table"
bench_write_section hostile "$table"
echo "wrote bench/RESULTS.md (section hostile); raw outputs in $work" >&2
exit $verdict
