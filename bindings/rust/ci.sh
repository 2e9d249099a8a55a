#!/usr/bin/env bash
# Rust binding: fetch the pinned crates, check the layout, run the tests (every conformance vector),
# and build the conformance runner that tests/test_cross_language.py executes.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
# The cross-language test runs target/release/conformance from here, whatever the caller's setting.
export CARGO_TARGET_DIR="$PWD/target"

cargo fetch --locked
cargo fmt --check
cargo test --locked --offline
cargo build --locked --offline --release --bin conformance
echo "built $CARGO_TARGET_DIR/release/conformance"
