#!/usr/bin/env bash
# Offline checks of the nightly job, run by scripts/after-tests.sh:
#  1. the Kubernetes manifests against Kubernetes' own schemas (kubernetes-validate, strict);
#  2. the CI job definition parses as YAML and runs bench/nightly.sh;
#  3. JUnit files written by `fleet compare --junit` (a regression and a clean comparison) and by
#     a bad case with characters XML must escape, validated against deploy/nightly/junit.xsd (lxml);
#  4. bench/nightly.sh end to end is left to the benchmarks (it runs a 3-minute profile).
# The Python tools live in .build/check-venv (scripts/setup.sh test installs them when missing).
set -euo pipefail
cd "$(dirname "$0")/../.."
venv=.build/check-venv
fleet="${1:-}"
if [ -z "$fleet" ]; then
  for f in .build/debug/fleet .build/release/fleet; do [ -x "$f" ] && { fleet="$f"; break; }; done
fi
[ -x "${fleet:-}" ] || { echo "nightly check: no fleet binary (build first)" >&2; exit 1; }
[ -x "$venv/bin/kubernetes-validate" ] || { echo "nightly check: $venv has no kubernetes-validate (run scripts/setup.sh test)" >&2; exit 1; }

echo "nightly check: manifests"
"$venv/bin/kubernetes-validate" --strict deploy/nightly/cronjob.yaml
# The checker must be able to say no: a CronJob with a misspelt field and a numeric schedule.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
sed -e 's/concurrencyPolicy: Forbid/concurencyPolicy: Forbid/' -e 's/schedule: "0 2 \* \* \*"/schedule: 2/' \
  deploy/nightly/cronjob.yaml > "$work/broken.yaml"
if "$venv/bin/kubernetes-validate" --strict --quiet "$work/broken.yaml" >/dev/null 2>&1; then
  echo "nightly check: kubernetes-validate accepted a broken CronJob" >&2; exit 1
fi

echo "nightly check: CI job definition"
"$venv/bin/python" - deploy/nightly/ci-nightly.yml <<'PY'
import sys, yaml
doc = yaml.safe_load(open(sys.argv[1]))
steps = doc["jobs"]["nightly"]["steps"]
assert any("bench/nightly.sh" in s.get("run", "") for s in steps), "no step runs bench/nightly.sh"
print("  ok:", sys.argv[1], len(steps), "steps")
PY

fixtures=Tests/FleetReportTests/Fixtures
set +e
"$fleet" compare "$fixtures/baseline.json" "$fixtures/results.json" --junit "$work/regression.xml" >/dev/null
s1=$?
"$fleet" compare "$fixtures/results.json" "$fixtures/baseline.json" --junit "$work/clean.xml" >/dev/null
s2=$?
set -e
[ $s1 -eq 97 ] || { echo "nightly check: expected exit 97 from the slower fixture, got $s1" >&2; exit 1; }
[ $s2 -eq 0 ] || { echo "nightly check: expected exit 0 from the faster fixture, got $s2" >&2; exit 1; }

echo "nightly check: JUnit files against deploy/nightly/junit.xsd"
"$venv/bin/python" - deploy/nightly/junit.xsd "$work/regression.xml" "$work/clean.xml" <<'PY'
import sys
from lxml import etree
schema = etree.XMLSchema(etree.parse(sys.argv[1]))
# The schema must be able to say no: a case without a name and a negative time are rejected.
bad = etree.fromstring(b'<testsuites><testsuite name="x" tests="1"><testcase time="-1"/></testsuite></testsuites>')
assert not schema.validate(bad), "the schema accepts an invalid file"
for path in sys.argv[2:]:
    doc = etree.parse(path)
    if not schema.validate(doc):
        for e in schema.error_log:
            print(f"  {path}:{e.line}: {e.message}", file=sys.stderr)
        sys.exit(1)
    cases = doc.findall(".//testcase")
    failures = doc.findall(".//testcase/failure")
    assert int(doc.getroot().get("tests")) == len(cases), f"{path}: tests attribute != cases"
    assert int(doc.getroot().get("failures")) == len(failures), f"{path}: failures attribute != failures"
    print(f"  ok: {path}: {len(cases)} cases, {len(failures)} failures")
PY
