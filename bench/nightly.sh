#!/usr/bin/env bash
# The nightly regression job: runs a profile, compares it with the latest run of the same profile
# in the history, records the run there, writes the report and a JUnit file, and exits with the
# status a scheduler acts on (README, exit codes): 0 ok, 97 regression, 98 invariant violated,
# 99 threshold failed, 1 failed, 2 bad input, 130 interrupted.
#
#   bench/nightly.sh [PROFILE]        (default profiles/nightly.json)
# Environment (all optional):
#   FLEET=path/to/fleet               the binary (default .build/release/fleet, then .build/debug/fleet)
#   FLEET_HISTORY=/data/history.sqlite  where runs accumulate (a persistent path: the baseline and the trend)
#   FLEET_REPORTS=/reports            where each run's report folder is written
#   FLEET_JUNIT=/reports/junit.xml    JUnit XML of thresholds and regression verdicts
#   FLEET_TARGET=URL                  a stack to load instead of the embedded one (loopback only unless
#                                     FLEET_ALLOW_REMOTE=1)
set -uo pipefail
cd "$(dirname "$0")/.."
profile="${1:-profiles/nightly.json}"
fleet="${FLEET:-}"
if [ -z "$fleet" ]; then
  for f in .build/release/fleet .build/debug/fleet; do [ -x "$f" ] && { fleet="$f"; break; }; done
fi
[ -x "${fleet:-}" ] || { echo "nightly: no fleet binary (build first or set FLEET)" >&2; exit 1; }
history="${FLEET_HISTORY:-reports/history.sqlite}"
reports="${FLEET_REPORTS:-reports}"
junit="${FLEET_JUNIT:-$reports/junit.xml}"
mkdir -p "$(dirname "$history")" "$reports" "$(dirname "$junit")"

args=(run --profile "$profile" --history "$history" --out "$reports" --baseline latest --junit "$junit")
[ -n "${FLEET_TARGET:-}" ] && args+=(--target "$FLEET_TARGET")
[ "${FLEET_ALLOW_REMOTE:-0}" = "1" ] && args+=(--allow-remote)

echo "nightly: $(date -u +%FT%TZ) load average $(cut -d' ' -f1-3 /proc/loadavg)"
"$fleet" "${args[@]}"
status=$?
case $status in
  0) verdict="ok" ;;
  97) verdict="regression against the latest run" ;;
  98) verdict="invariant violated" ;;
  99) verdict="threshold failed" ;;
  130) verdict="interrupted" ;;
  2) verdict="bad input" ;;
  *) verdict="failed" ;;
esac
echo "nightly: exit $status ($verdict); change points so far:"
name=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["name"])' "$profile" 2>/dev/null || true)
[ -n "$name" ] && "$fleet" history --history "$history" --profile "$name" --changes || true
exit $status
