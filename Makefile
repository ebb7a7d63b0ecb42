# Fleet: `make run` runs the smoke profile against the embedded stack; `make test` runs every test.
# Both install the Debian packages they need first (scripts/setup.sh installs only what is missing).
SWIFT ?= swift
export PATH := $(PATH):/opt/swift/usr/bin

.PHONY: run test build setup setup-test clean

setup:
	@bash scripts/setup.sh

setup-test:
	@bash scripts/setup.sh test

build: setup
	$(SWIFT) build -c release

run: build
	./.build/release/fleet run --profile profiles/smoke.json

test: setup-test
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build
	@bash scripts/after-tests.sh

clean:
	rm -rf .build
