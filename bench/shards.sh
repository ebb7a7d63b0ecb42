#!/usr/bin/env bash
# One run as 4 shard processes vs the same run as one process, against one `fleet stack` each
# (fresh, same settings), alternating single and sharded PAIRS times (default 3).
#
#   bench/shards.sh [PAIRS]        FLEET=.build/release/fleet by default; OUT=dir for the runs
#                                  BARRIER_S=90: seconds from launch to the shards' --start-at
#
# The barrier leaves time for four processes to load and analyse the audio corpus at once
# (about 35 s on 2 shared cores); a shard still loading at the barrier starts late and says so.
# Each shard sends from its own loopback address (127.0.0.2 … 127.0.0.5, --source-address) and
# all four wait for one start barrier (--start-at); `fleet merge` makes one report of them. The
# summary compares journey counts and funnels (must be identical to the single runs') and the
# headline percentiles (must lie within the spread of the single runs), and lists the client
# addresses the stack saw (from `ss`) and the load average. Everything is loopback and bounded.
set -euo pipefail
cd "$(dirname "$0")/.."
pairs=${1:-3}
fleet=${FLEET:-.build/release/fleet}
[ -x "$fleet" ] || { echo "shards: no $fleet (swift build -c release)" >&2; exit 1; }
profile=bench/shards-profile.json
out=${OUT:-$(mktemp -d /tmp/fleet-shards.XXXXXX)}
mkdir -p "$out"
stackpid=""
trap '[ -n "$stackpid" ] && kill -TERM $stackpid 2>/dev/null; wait 2>/dev/null || true' EXIT

# The profile's embedded-stack settings, as `fleet stack` flags (see bench/shards-profile.json).
start_stack() {  # $1: tag
  "$fleet" stack --port 0 --entitlement active --workers 16 --median-ms 400 --sigma 0.4 --seed 7 \
    --db "$out/stack-$1.sqlite" >"$out/stack-$1.log" 2>&1 &
  stackpid=$!
  url=""
  for _ in $(seq 1 100); do
    url=$(awk '/^READY /{print $2}' "$out/stack-$1.log")
    [ -n "$url" ] && break
    sleep 0.1
  done
  [ -n "$url" ] || { echo "shards: stack did not start" >&2; cat "$out/stack-$1.log" >&2; exit 1; }
  port=${url##*:}
}
stop_stack() { kill -TERM "$stackpid"; wait "$stackpid" 2>/dev/null || true; stackpid=""; }

# Distinct client addresses with an established connection to the stack, sampled during a run.
watch_clients() {  # $1: file
  for _ in $(seq 1 20); do
    ss -Htn state established "( dport = :$port )" 2>/dev/null | awk '{print $3}' | sed 's/:[0-9]*$//'
    sleep 1
  done | sort | uniq -c >"$1"
}

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)" | tee "$out/load.txt"
for p in $(seq 1 "$pairs"); do
  start_stack "single-$p"
  watch_clients "$out/clients-single-$p.txt" &
  w=$!
  "$fleet" run --profile "$profile" --target "$url" --out "$out/single-$p" --history "$out/history.sqlite" \
    >"$out/single-$p.log" 2>&1 || echo "single $p exited $?" | tee -a "$out/load.txt"
  wait $w
  stop_stack
  echo "pair $p single done; load $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$out/load.txt"

  start_stack "sharded-$p"
  at=$(date -u -d "+${BARRIER_S:-90} sec" +%Y-%m-%dT%H:%M:%SZ)
  pids=()
  for i in 0 1 2 3; do
    "$fleet" run --profile "$profile" --target "$url" --out "$out/sharded-$p" --shard "$i/4" --start-at "$at" \
      --source-address "127.0.0.$((i + 2))" >"$out/sharded-$p-shard$i.log" 2>&1 &
    pids+=($!)
  done
  # Sample the stack's clients once the shards are past the barrier.
  (sleep "$(( $(date -d "$at" +%s) - $(date +%s) + 2 ))"; watch_clients "$out/clients-sharded-$p.txt") &
  w=$!
  for pid in "${pids[@]}"; do wait "$pid" || echo "a shard of pair $p exited $?" | tee -a "$out/load.txt"; done
  wait $w
  stop_stack
  "$fleet" merge "$out"/sharded-$p/*-shard-* --out "$out/sharded-$p/merged" >"$out/merge-$p.log" 2>&1 \
    || echo "merge $p exited $?" | tee -a "$out/load.txt"
  echo "pair $p sharded done; load $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$out/load.txt"
done

python3 bench/shards-compare.py "$out" "$pairs" | tee "$out/summary.md"
echo "runs and logs: $out"
