#!/usr/bin/env bash
# bench/requests-per-visit.sh — measures the mean requests per visit, by endpoint, of each journey
# (40 users each, the journey's usual cohort, default branch probabilities, the embedded stack)
# and prints them as the Swift table in Sources/FleetRunner/Population/RequestsPerVisit.swift,
# from which a population profile's expected requests/s by endpoint are printed before a run.
# Counts, not timings: a loaded machine does not change them (polls aside: they follow turnaround).
#   bench/requests-per-visit.sh [FLEET_BIN]      (about 5 minutes; every run bounded at 80 s)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=${1:-$ROOT/.build/release/fleet}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
cd "$ROOT"
for pair in firstLaunch:new permissionDenied:new dailyQuest:returning freePractice:returning killAndResume:returning \
            offlineUpload:returning changeLanguages:returning deleteData:returning expiry:at_risk; do
    j=${pair%%:*}; c=${pair##*:}
    python3 - "$j" "$c" "$WORK" <<'PY'
import json, sys
j, c, work = sys.argv[1:4]
p = json.load(open('profiles/smoke.json'))
p.update(name='rpv-' + j, duration_s=40, grace_s=40, thresholds={})
p['stack']['newUserEntitlement'] = 'none'
p['scenarios'] = [{"name": "one", "model": {"type": "per-user-once", "users": 40, "ramp_s": 10, "max_duration_s": 40},
                   "journeys": {j: 1}, "cohorts": {c: 1}}]
json.dump(p, open(f'{work}/{j}.json', 'w'))
PY
    timeout 120 "$BIN" run --profile "$WORK/$j.json" --out "$WORK/out-$j" >/dev/null 2>&1 || true
done
python3 - "$WORK" <<'PY'
import glob, json, sys
work = sys.argv[1]
print("    static let measured: [String: [String: Double]] = [")
for path in sorted(glob.glob(f'{work}/out-*/*/results.json')):
    r = json.load(open(path))
    j = path.split('/out-')[1].split('/')[0]
    visits = sum(v for k, v in r['counters'].items() if k.startswith('users_started:'))
    eps = {e['name']: e['latency']['corrected']['count'] for e in r['endpoints']
           if not e['name'].startswith(('warmup:', 'audit:'))}
    cells = [f'"{k}": {v / visits:.2f}' for k, v in sorted(eps.items()) if v / visits >= 0.005]
    lines, line = [], ''
    for c in cells:
        if len(line) + len(c) > 100:
            lines.append(line.rstrip()); line = ''
        line += c + ', '
    lines.append(line.rstrip().rstrip(','))
    print(f'        "{j}": [')
    for l in lines: print('            ' + l)
    print('        ],')
print("    ]")
PY
