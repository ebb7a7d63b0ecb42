#!/usr/bin/env bash
# Installs the Debian packages Fleet needs, only those missing, so that `make run` and
# `make test` work on a fresh machine. `setup.sh test` adds what the test suite needs
# (headless Chromium for the report check, schemathesis for the contract check).
set -euo pipefail

need=(pkg-config libcurl4-openssl-dev libsqlite3-dev libsndfile1-dev sqlite3)
if [ "${1:-}" = "test" ]; then
  need+=(chromium fonts-liberation fonts-dejavu-core curl)
fi

missing=()
for p in "${need[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# The offline checks of deploy/nightly (scripts/after-tests.sh) need kubernetes-validate (the
# Kubernetes schemas, no cluster) and lxml (XML Schema validation of the JUnit output), from PyPI
# into a venv under .build, installed only when missing.
if [ "${1:-}" = "test" ]; then
  venv=.build/check-venv
  if ! { [ -x "$venv/bin/kubernetes-validate" ] && "$venv/bin/python" -c 'import lxml.etree, yaml' 2>/dev/null; }; then
    echo "setup: installing kubernetes-validate and lxml into $venv"
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q kubernetes-validate lxml
  fi
fi

if ! command -v swift >/dev/null 2>&1; then
  if [ -x /opt/swift/usr/bin/swift ]; then
    echo "setup: swift is at /opt/swift/usr/bin; add it to PATH" >&2
  else
    echo "setup: no Swift toolchain found (Swift 6 is expected at /opt/swift)" >&2
  fi
  exit 1
fi
