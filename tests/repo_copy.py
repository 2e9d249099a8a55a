"""A temporary copy of the repository that a test edits the way a maintainer would, and runs tools in.

Shared by the change drill (tests/package/test_change_drill.py) and the release drill
(tests/package/test_release_drill.py): what is copied (sources, not build output or caches), and how the
copy's tools are run (the copy's package and generators first on the path, the copy's vectors).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

from build_dirs import CARGO_TARGET, ROOT, cargo_lock

NOT_COPIED = (".git", ".venv", "node_modules", "target", "__pycache__", ".mypy_cache", ".ruff_cache", ".pytest_cache")
NOT_COPIED += ("dist", "dist-test")  # build output of the bindings
NOT_COPIED += (".cache",)  # the Gym oracle's venvs (tests/gym_oracle), gigabytes the drills never read
NOT_COPIED += ("build",)  # the tests' builds (tests/build_dirs.py) and fuzz corpora
BUILT_BINARIES = Path("bindings/go/bin")  # Go's build output (bindings/rust/src/bin is source)


def not_copied(relative: Path) -> bool:
    return bool(set(relative.parts) & set(NOT_COPIED)) or relative.is_relative_to(BUILT_BINARIES)


def _ignore(root: Path) -> Callable[[str, list[str]], set[str]]:
    def ignore(directory: str, names: list[str]) -> set[str]:
        relative = Path(directory).relative_to(root)
        return {name for name in names if not_copied(relative / name)}

    return ignore


def copy_repository(copy: Path, *, with_builds: bool = False) -> Path:
    """The repository's sources copied to ``copy``; ``with_builds`` copies node_modules and the Cargo target."""
    shutil.copytree(ROOT, copy, ignore=_ignore(ROOT))
    if with_builds:
        modules = ROOT / "bindings" / "typescript" / "node_modules"
        if modules.is_dir():
            # A copy, not a symlink: a binding's ci.sh runs `npm ci`, which empties node_modules first.
            shutil.copytree(modules, copy / "bindings" / "typescript" / "node_modules", symlinks=True)
        if CARGO_TARGET.is_dir():
            # The crates' builds from `make test`'s ci.sh run: a build in the copy compiles only what changed
            # (minutes saved), and the copy keeps the repository's own build untouched.
            with cargo_lock():
                shutil.copytree(CARGO_TARGET, copy / CARGO_TARGET.relative_to(ROOT), symlinks=True)
    return copy


def copy_env(copy: Path, **extra: str) -> dict[str, str]:
    # The copy's package and generators come first (the editable install points at the original), and
    # the copy's vectors.
    env = {k: v for k, v in os.environ.items() if not k.startswith("VERIFY_CONTRACT_")}
    env["PYTHONPATH"] = os.pathsep.join([str(copy / "bindings" / "python"), str(copy)])
    env["VERIFY_CONTRACT_VECTORS"] = str(copy / "vectors")
    return {**env, **extra}


def run_in(copy: Path, *args: str, timeout: int = 1200, **env: str) -> subprocess.CompletedProcess[str]:
    """``args`` run in the copy, its output captured."""
    return subprocess.run(args, cwd=copy, env=copy_env(copy, **env), capture_output=True, text=True, timeout=timeout)
