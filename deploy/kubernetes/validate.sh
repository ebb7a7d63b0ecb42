#!/usr/bin/env bash
# Validates every manifest in deploy/kubernetes/ offline against Kubernetes' own schemas with
# kubernetes-validate (PyPI; installed into .build/k8s-venv only when missing). --strict rejects
# fields the schema does not know, so a typo in a manifest fails here, not on the cluster.
# Also checks that the profile in configmap-profile.yaml is valid JSON. Non-zero on any failure.
set -euo pipefail
cd "$(dirname "$0")/../.."
here=deploy/kubernetes
venv=.build/k8s-venv
if [ ! -x "$venv/bin/kubernetes-validate" ]; then
  echo "kubernetes: installing kubernetes-validate into $venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q kubernetes-validate
fi
shopt -s nullglob
manifests=("$here"/*.yaml)
[ ${#manifests[@]} -gt 0 ] || { echo "kubernetes: no manifests in $here" >&2; exit 1; }
"$venv/bin/kubernetes-validate" --strict "${manifests[@]}"
# The profile must parse as JSON (the bench checks the rest when it runs it).
"$venv/bin/python" - "$here/configmap-profile.yaml" <<'PY'
import json, sys, yaml
doc = yaml.safe_load(open(sys.argv[1]))
json.loads(doc["data"]["profile.json"])
print(f"{sys.argv[1]}: profile.json is valid JSON")
PY
