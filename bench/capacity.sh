#!/usr/bin/env bash
# Capacity search on the reference stack (issue 13): the knee found by `fleet capacity` against the
# queueing bound W/(S·J), a check that the stack's CPU is not what limits, a starved generator,
# and the population's arrival curve. Loopback only; every run bounded. Results: bench/RESULTS.md.
#   bench/capacity.sh [knee|cpu|starved|population|all]   (default all; about 25 minutes)
set -euo pipefail
cd "$(dirname "$0")/.."
FLEET=${FLEET:-.build/debug/fleet}
OUT=${OUT:-/tmp/fleet-capacity}
mkdir -p "$OUT"
what=${1:-all}
say() { echo "== $*"; uptime; }

# A variant of a profile: python3 edits the JSON (key path=value pairs).
variant() {  # variant SRC DST 'python statements on p'
  python3 - "$1" "$2" "$3" <<'PY'
import json, sys
p = json.load(open(sys.argv[1])); exec(sys.argv[3]); json.dump(p, open(sys.argv[2], "w"), indent=1)
PY
}

if [[ $what == knee || $what == all ]]; then
  for f in w4-s300 w8-s400; do
    say "knee: $f"
    /usr/bin/time -f "wall %e s" timeout 700 "$FLEET" capacity --profile bench/capacity/$f.json --out "$OUT" --max-duration 600 \
      | tee "$OUT/$f.log" | grep -E "^step|^capacity:" || true
  done
fi

if [[ $what == cpu || $what == all ]]; then
  # The same journeys at 1.25 × the queueing bound with 64 workers (queueing limit far away): if the
  # stack's CPU (or the bench's) were the limit near the knee, this step would fail too.
  variant bench/capacity/w4-s300.json "$OUT/w4-cpu.json" 'p["stack"]["workers"]=64; p["capacity"]["start_rate"]=8.33'
  variant bench/capacity/w8-s400.json "$OUT/w8-cpu.json" 'p["stack"]["workers"]=64; p["capacity"]["start_rate"]=12.5'
  for f in w4-cpu w8-cpu; do
    say "cpu check: $f (one step)"
    timeout 200 "$FLEET" capacity --profile "$OUT/$f.json" --out "$OUT" --max-duration 70 | tee "$OUT/$f.log" | grep -E "^step|^capacity:" || true
  done
fi

if [[ $what == starved || $what == all ]]; then
  # The stall hook blocks the users' pool for 1.5 s in every step after its warm-up.
  variant bench/capacity/w8-s400.json "$OUT/w8-starved.json" 'p["debug"]={"stall_at_s": 20, "stall_s": 1.5}'
  say "starved generator"
  timeout 300 "$FLEET" capacity --profile "$OUT/w8-starved.json" --out "$OUT" --max-duration 120 | tee "$OUT/starved.log" \
    | grep -E "^step|^capacity:" || true
fi

if [[ $what == population || $what == all ]]; then
  say "population: the curve"
  "$FLEET" profile validate profiles/population.json
  say "population: a compressed day (24 min)"
  timeout 1600 "$FLEET" run --profile profiles/population.json --out "$OUT" --history "$OUT/history.sqlite" | tee "$OUT/population.log" \
    | grep -E "^population|^report" || true
fi
