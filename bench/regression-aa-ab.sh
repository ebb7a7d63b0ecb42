#!/usr/bin/env bash
# A/A and A/B check of `fleet compare` (issue 14) against the embedded reference stack:
#   A/A: PAIRS_AA pairs of runs of bench/regression/a.json, the second compared with the first:
#        no headline metric may come out `worse`; the intervals' widths say how much noise there is.
#   A/B: after each of the first PAIRS_AB pairs, one run of bench/regression/b.json (+30 % assessment
#        median, otherwise the same profile and hash) compared with the A run just before it, so the
#        order is A A B A A B …: turnaround should be `worse`, settlement `same`.
# Every run is bounded (48 s of arrivals + 12 s grace). The machine is shared: the load average is
# recorded before every run.
#   FLEET=.build/release/fleet PAIRS_AA=10 PAIRS_AB=3 WORK=/tmp/fleet-regression bench/regression-aa-ab.sh
set -uo pipefail
cd "$(dirname "$0")/.."
fleet="${FLEET:-.build/release/fleet}"
[ -x "$fleet" ] || { echo "regression: no $fleet (swift build -c release, or set FLEET)" >&2; exit 1; }
aa="${PAIRS_AA:-10}"; ab="${PAIRS_AB:-3}"
work="${WORK:-/tmp/fleet-regression}"
rm -rf "$work"; mkdir -p "$work"
rows="$work/verdicts.tsv"
printf 'kind\tpair\tmetric\tpct\tbase_ms\tnew_ms\tratio\tlow\thigh\tverdict\n' > "$rows"

run() {  # run PROFILE → prints the results.json path
  local load; load=$(cut -d' ' -f1 /proc/loadavg)
  local log; log=$(mktemp -p "$work" run.XXXX.log)
  "$fleet" run --profile "$1" --out "$work/reports" --history "$work/history.sqlite" >"$log" 2>&1
  local status=$?
  local dir; dir=$(awk '/^report: /{print $2}' "$log" | xargs dirname)
  echo "$(date -u +%T) $(basename "$1") exit $status load $load $(grep -c 'generator fell behind' "$log") lag-notes $dir" >> "$work/runs.log"
  echo "$dir/results.json"
}

compare() {  # compare KIND PAIR BASE NEW
  local out; out=$("$fleet" compare "$3" "$4")
  local status=$?
  echo "$1 $2 exit $status" >> "$work/compares.log"
  echo "$out" > "$work/compare-$1-$2.txt"
  # Table rows: "metric [*]  pN  base ms  new ms  ratio  [low, high]  verdict"
  echo "$out" | awk -v kind="$1" -v pair="$2" '
    $2 == "*" && $3 ~ /^p[0-9]+$/ {
      gsub(/[\[\],]/, "", $9); gsub(/[\[\],]/, "", $10)
      printf "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", kind, pair, $1, $3, $4, $6, $8, $9, $10, $11 }
    $2 == "rate" { printf "%s\t%s\t%s\trate\t%s\t%s\t%s\t\t\t%s\n", kind, pair, $1, $3, $4, $5, $NF }' >> "$rows"
}

for i in $(seq 1 "$aa"); do
  base=$(run bench/regression/a.json)
  new=$(run bench/regression/a.json)
  compare AA "$i" "$base" "$new"
  if [ "$i" -le "$ab" ]; then
    b=$(run bench/regression/b.json)
    compare AB "$i" "$new" "$b"
  fi
done

echo "== runs"; cat "$work/runs.log"
echo "== A/A: worse verdicts on headline metrics (must be 0)"
awk -F'\t' '$1 == "AA" && $4 != "rate" && $10 == "worse"' "$rows" | wc -l
echo "== A/A: interval width (high - low of new/base) per headline metric and percentile: median, max"
awk -F'\t' '$1 == "AA" && $4 != "rate" && $8 != "" { print $3 "\t" $4 "\t" ($9 - $8) }' "$rows" | sort -k1,1 -k2,2 -k3,3g |
  awk -F'\t' '{ k = $1 " " $2; v[k] = v[k] " " $3; n[k]++ }
    END { for (k in v) { split(substr(v[k], 2), a, " "); m = a[int((n[k] + 1) / 2)]; printf "%-40s median %.3f  max %.3f  (%d pairs)\n", k, m, a[n[k]], n[k] } }' | sort
echo "== A/A: verdict counts"
awk -F'\t' '$1 == "AA" { c[$3 " " $4 " " $10]++ } END { for (k in c) print c[k], k }' "$rows" | sort -k2
echo "== A/B: verdicts per pair"
awk -F'\t' '$1 == "AB" { printf "pair %s  %-32s %-5s ratio %s [%s, %s] %s\n", $2, $3, $4, $7, $8, $9, $10 }' "$rows"
