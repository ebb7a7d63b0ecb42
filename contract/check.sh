#!/usr/bin/env bash
# Holds the reference stack to contract/openapi.yaml with schemathesis (from PyPI): starts
# `fleet stack` on a free loopback port, signs in one user, and runs the examples, coverage and
# fuzzing phases with the checks: no server error, documented status codes, content types,
# headers and response schemas. DELETE /me is left out (it would retire the run's only token).
#
#   contract/check.sh [FLEET_BINARY]      (default .build/debug/fleet, then .build/release/fleet)
#   CONTRACT_MAX_TIME=120 controls the time budget in seconds.
set -euo pipefail
cd "$(dirname "$0")/.."
fleet="${1:-}"
if [ -z "$fleet" ]; then
  for f in .build/debug/fleet .build/release/fleet; do [ -x "$f" ] && { fleet="$f"; break; }; done
fi
[ -x "${fleet:-}" ] || { echo "contract: no fleet binary (build first)" >&2; exit 1; }

venv=.build/contract-venv
if [ ! -x "$venv/bin/schemathesis" ]; then
  echo "contract: installing schemathesis into $venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q schemathesis
fi

out=$(mktemp)
"$fleet" stack --port 0 --entitlement active --rate-limit 0 >"$out" 2>&1 &
pid=$!
trap 'kill -TERM $pid 2>/dev/null || true; wait $pid 2>/dev/null || true; rm -f "$out"' EXIT
url=""
for _ in $(seq 1 100); do
  url=$(awk '/^READY /{print $2}' "$out")
  [ -n "$url" ] && break
  sleep 0.1
done
[ -n "$url" ] || { echo "contract: the stack did not print READY" >&2; cat "$out" >&2; exit 1; }

token=$(curl -sf -X POST "$url/auth/anonymous" -H 'Content-Type: application/json' \
  -d '{"install_id":"contract-check","timezone":"UTC","locale":"en-US","app_version":"1.4.0","platform":"ios"}' |
  python3 -c 'import json,sys; print(json.load(sys.stdin)["access_token"])')

"$venv/bin/schemathesis" --config-file contract/schemathesis.toml run contract/openapi.yaml -u "$url" -H "Authorization: Bearer $token" \
  --checks not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance,response_headers_conformance \
  --phases examples,coverage,fuzzing --exclude-operation-id deleteAccount \
  --max-time "${CONTRACT_MAX_TIME:-120}" --seed 1
