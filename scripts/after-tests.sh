#!/usr/bin/env bash
# Checks that run outside XCTest because they drive other programs (headless Chromium on a
# rendered report, schemathesis against the stack, the nightly job's manifests and JUnit schema). Each check is a script of its own; a missing one is an error, not a skip.
set -euo pipefail
cd "$(dirname "$0")/.."
for check in bench/browser-check.sh contract/check.sh deploy/kubernetes/validate.sh deploy/nightly/check.sh; do
  if [ ! -x "$check" ]; then
    echo "after-tests: $check is missing" >&2
    exit 1
  fi
  echo "after-tests: $check"
  "$check"
done
