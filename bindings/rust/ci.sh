#!/usr/bin/env bash
# Rust binding: fetch the pinned crates, check the layout, run the tests (every conformance vector),
# and build the conformance runner that tests/test_cross_language.py executes.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
# Every Rust build of the repository shares one target directory, build/cargo (gitignored), so the dependency
# tree compiles once; the cross-language test runs build/cargo/release/conformance, whatever the caller's setting.
CARGO_TARGET_DIR="$(cd ../.. && pwd)/build/cargo"
export CARGO_TARGET_DIR

cargo fetch --locked
cargo fmt --check
cargo test --locked --offline
cargo build --locked --offline --release --bin conformance
echo "built $CARGO_TARGET_DIR/release/conformance"
