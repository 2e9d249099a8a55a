"""Where the tests' language builds go: one Cargo target directory, under the repository's gitignored build/.

Every Rust build of the repository shares it (the binding's ci.sh, the crates ``generate`` writes, the template
check, the package test), so the dependency tree compiles once; a drill's copy of the repository has its own
(a copy of this one). Go and npm already share their per-user caches. A test that builds a program there and
runs it takes ``cargo_lock`` for the build and copies the program out, so that parallel test workers never run
a program another worker's build has just replaced.
"""

from __future__ import annotations

import fcntl
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CARGO_TARGET = ROOT / "build" / "cargo"
RUST_RUNNER = ROOT / "bindings" / "rust" / "bin" / "conformance"  # built by bindings/rust/ci.sh


@contextmanager
def cargo_lock() -> Iterator[Path]:
    """The shared target directory, held by this process alone until the block ends."""
    CARGO_TARGET.mkdir(parents=True, exist_ok=True)
    with open(CARGO_TARGET.parent / "cargo-target.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield CARGO_TARGET


def keep(program: Path, directory: Path) -> Path:
    """A copy of a built ``program`` in the test's own ``directory`` (call it inside ``cargo_lock``)."""
    return Path(shutil.copy2(program, directory / program.name))
