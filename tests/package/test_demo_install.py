"""`make demo` in a fresh clone: it installs the package and what the package needs, no extra (none of the
test extra's Ray, moto, matplotlib or linters), stays under 100 MB, and prints README's demo report. Its time is
measured, not asserted (README states the figures)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from markdown_blocks import ROOT, blocks

LIMIT_BYTES = 100 * 1024 * 1024
TEST_EXTRA_ONLY = ("pytest", "ruff", "mypy", "ray", "moto", "matplotlib", "prometheus-client", "fastapi", "s3fs")


def _size(directory: Path) -> int:
    return sum(
        os.path.getsize(os.path.join(folder, name))
        for folder, _, names in os.walk(directory)
        for name in names
        if not os.path.islink(os.path.join(folder, name))
    )


@pytest.mark.skipif(shutil.which("make") is None or shutil.which("git") is None, reason="needs make and git")
def test_make_demo_in_a_fresh_clone_installs_the_package_alone(tmp_path: Path) -> None:
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(clone)], check=True, timeout=120)
    done = subprocess.run(["make", "demo"], cwd=clone, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    shown = next(b for b in blocks("README.md", "") if "examples/results.jsonl:" in b.code).code.splitlines()
    printed = done.stdout.splitlines()
    assert shown[0] in printed and shown[2] in printed  # the first finding and the summary
    venv = clone / ".venv-demo"
    assert not (clone / ".venv").exists()  # the test environment was not made
    assert _size(venv) < LIMIT_BYTES, f"{_size(venv) / 1e6:.0f} MB"
    names = subprocess.run(
        [
            str(venv / "bin" / "python"),
            "-c",
            "import importlib.metadata as m; print('\\n'.join(d.metadata['Name'].lower() for d in m.distributions()))",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert "verify-contract" in names and "pydantic" in names
    assert not set(TEST_EXTRA_ONLY) & set(names), sorted(set(TEST_EXTRA_ONLY) & set(names))
