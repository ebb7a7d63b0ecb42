#!/usr/bin/env bash
# Start-up: seconds from launching `fleet run` to the line that says the run began (printed after
# the target answered and the corpus was loaded, right before the first arrival), with the corpus
# check cache cold (an empty FLEET_CACHE_DIR) and warm, alternated (cold warm cold warm …, N pairs),
# against one `fleet stack` on loopback. Usage: bench/startup.sh [FLEET_BINARY] [PAIRS]
# (the binary: the argument, else FLEET_BIN as the other scripts take it, else .build/release/fleet)
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=bench/lib.sh
source bench/lib.sh
fleet=${1:-${FLEET_BIN:-.build/release/fleet}}
pairs=${2:-3}
bench_load_guard startup || exit 3  # LOAD_MAX; LOADED_OK=1 runs anyway (the header shows the load)
work=$(mktemp -d /tmp/fleet-startup.XXXXXX)
"$fleet" stack --port 0 --duration 600 > "$work/stack.out" 2>&1 &
stack=$!
trap 'kill $stack 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 50); do grep -q READY "$work/stack.out" && break; sleep 0.2; done
url=$(sed -n 's/^READY //p' "$work/stack.out")
echo "# startup $(date -u +%FT%TZ) · load $(cut -d' ' -f1-3 /proc/loadavg) · $fleet · target $url"
warm="$work/warm-cache"
FLEET_CACHE_DIR="$warm" "$fleet" corpus validate audio-corpus > /dev/null 2>&1 || true
FLEET_CACHE_DIR="$warm" "$fleet" run --profile profiles/smoke.json --target "$url" --duration 1 --out "$work/r" --history "$work/h.sqlite" > /dev/null 2>&1 || true
one() {  # $1 = cache dir; prints seconds to "run …: profile"
  local start end
  start=$(date +%s.%N)
  FLEET_CACHE_DIR="$1" "$fleet" run --profile profiles/smoke.json --target "$url" --duration 1 --out "$work/r" \
    --history "$work/h.sqlite" 2>&1 | while IFS= read -r line; do
      case "$line" in "run "*": profile "*) date +%s.%N; break ;; esac
    done > "$work/t"
  end=$(cat "$work/t")
  awk -v a="$start" -v b="$end" 'BEGIN { printf "%.2f\n", b - a }'
}
echo "| pair | cold cache s | warm cache s |"
echo "|---|---|---|"
for i in $(seq "$pairs"); do
  c=$(one "$work/cold-$i"); w=$(one "$warm")
  echo "| $i | $c | $w |"
done
