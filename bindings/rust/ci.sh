#!/usr/bin/env bash
# Rust binding: fetch the pinned crates, check the layout, run the tests (every conformance vector),
# and build the conformance runner that tests/bindings/test_cross_language.py executes (bin/conformance).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
# Every Rust build of the repository shares one target directory, build/cargo (gitignored), so the dependency
# tree compiles once, whatever the caller's setting.
CARGO_TARGET_DIR="$(cd ../.. && pwd)/build/cargo"
export CARGO_TARGET_DIR

# Clippy judges the generated Rust (tests/codegen/test_generate_toolchains.py); a toolchain installed without it gets it.
cargo clippy --version >/dev/null 2>&1 || rustup component add clippy
cargo fetch --locked
cargo fmt --check
cargo test --locked --offline
# The runner is built in the profile the tests just compiled the dependency tree in, so it costs one link, not
# a second (optimised) build of the tree: 1.5 minutes on a 2-core machine, for a runner that is then 4x slower
# (7 s instead of 1.8 s over the differential fuzzer's 20,000 documents). Copied out of the shared target
# directory, where a test's build of another copy of the crate writes a runner of the same name.
cargo build --locked --offline --bin conformance
mkdir -p bin
cp "$CARGO_TARGET_DIR/debug/conformance" bin/conformance
echo "built bin/conformance"
