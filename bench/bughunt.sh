#!/usr/bin/env bash
# The bug hunt's figures: each named bug of the reference stack switched on alone is caught by one
# run of profiles/bughunt.json (the invariant it breaks, exit 98) and its first violating user is
# reproduced by `fleet replay` (exit 98); with every bug off, N runs of bughunt.json and M of
# chaos.json (faults on) report no violation. Loopback only (the embedded stack); every run is
# bounded by its profile. Usage: bench/bughunt.sh [FLEET_BINARY] [CLEAN_RUNS] [CHAOS_RUNS]
# (BUGS="" skips the bug runs; BUGS="settle-race lost-submit" runs those only.)
set -uo pipefail
cd "$(dirname "$0")/.."
fleet=${1:-.build/release/fleet}
clean=${2:-5}
chaos=${3:-3}
out=$(mktemp -d /tmp/fleet-bughunt.XXXXXX)
echo "# bughunt $(date -u +%FT%TZ) · load $(cut -d' ' -f1-3 /proc/loadavg) · $fleet · out $out"
declare -A expect=([settle-race]=one_settlement_per_session [dup-transaction]=transaction_extends_once
                   [streak-utc]=streak_once_per_local_day [lost-submit]=one_terminal_status [stale-resume]=resume_in_progress)
echo "| bug | run exit | violations (invariant: count) | expected invariant caught | first user | replay exit | replay try | run s | replay s |"
echo "|---|---|---|---|---|---|---|---|---|"
for bug in ${BUGS-settle-race dup-transaction streak-utc lost-submit stale-resume}; do
  t0=$(date +%s)
  "$fleet" run --profile profiles/bughunt.json --bugs "$bug" --out "$out/$bug" --history "$out/h.sqlite" > "$out/$bug.log" 2>&1
  rc=$?
  t1=$(date +%s)
  dir=$(ls -d "$out/$bug"/*/ | head -1)
  counts=$(tail -n +2 "$dir/violations.csv" | cut -d, -f1 | sort | uniq -c | awk '{printf "%s: %s; ", $2, $1}')
  # sort -u reads everything first, so grep -q cannot cut the pipe short (pipefail would say NO).
  caught=$(tail -n +2 "$dir/violations.csv" | cut -d, -f1 | sort -u | grep -qx "${expect[$bug]}" && echo yes || echo NO)
  user=$(grep "^${expect[$bug]}," "$dir/violations.csv" | sed -n 1p | cut -d, -f2)
  rrc=-; try=-
  if [ -n "$user" ]; then
    "$fleet" replay --run "$dir" --user "$user" --repeat 3 > "$out/$bug.replay.log" 2>&1
    rrc=$?
    try=$(grep -o '^try [0-9]*: reproduced' "$out/$bug.replay.log" | head -1 | cut -d' ' -f2 | tr -d :)
  fi
  t2=$(date +%s)
  echo "| \`$bug\` | $rc | ${counts:-none} | $caught | ${user:--} | $rrc | ${try:--} | $((t1 - t0)) | $((t2 - t1)) |"
done
echo
echo "| profile (bugs off) | run | exit | violations | journeys completed | run s |"
echo "|---|---|---|---|---|---|"
for p in bughunt chaos; do
  n=$clean; [ "$p" = chaos ] && n=$chaos
  for i in $(seq 1 "$n"); do
    t0=$(date +%s)
    "$fleet" run --profile "profiles/$p.json" --seed $((1000 + i)) --out "$out/$p-$i" --history "$out/h.sqlite" > "$out/$p-$i.log" 2>&1
    rc=$?
    dir=$(ls -d "$out/$p-$i"/*/ | head -1)
    v=$(($(wc -l < "$dir/violations.csv") - 1))
    j=$(grep -o 'journeys completed [0-9]*/[0-9]*' "$out/$p-$i.log" | head -1 | cut -d' ' -f3)
    echo "| $p | $i | $rc | $v | $j | $(( $(date +%s) - t0 )) |"
  done
done
