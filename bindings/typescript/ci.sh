#!/usr/bin/env bash
# The TypeScript binding from a clean clone: install the pinned dependencies, build, run the tests.
# Leaves dist/conformance.js built for the cross-language test (tests/bindings/test_cross_language.py).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"

npm ci --no-audit --no-fund
rm -rf dist dist-test  # no stale output from removed sources
npm test  # builds dist/ (tsc), then the tests, then runs them with node --test
test -f dist/conformance.js
