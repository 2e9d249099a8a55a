"""What a newcomer meets following the docs: the commands they name do what they say, and the files the
documented steps leave behind are ignored by git."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# Tools a comment may say a make target runs; each must then be in the target's commands.
TOOLS = ("npm", "cargo", "go ", "pip", "python -m generators", "pytest", "ruff", "mypy")


def test_npm_pack_output_is_ignored() -> None:
    """`npm pack` in bindings/typescript (docs/release.md step 4) writes <name>-<version>.tgz there."""
    package = json.loads((ROOT / "bindings" / "typescript" / "package.json").read_text(encoding="utf-8"))
    tarball = f"bindings/typescript/{package['name']}-{package['version']}.tgz"
    done = subprocess.run(["git", "check-ignore", "-q", tarball], cwd=ROOT, capture_output=True, check=False)
    assert done.returncode == 0, f"{tarball} is not ignored"


def test_go_readme_tidies_after_the_replace() -> None:
    text = (ROOT / "bindings" / "go" / "README.md").read_text(encoding="utf-8")
    replace = text.index("\nreplace ")
    after = text[replace : replace + 400]
    assert "go mod tidy" in after, "the replace directive needs `go mod tidy` (go.sum) before `go build`"


def _dry_run(target: str) -> str:
    """What ``make TARGET`` runs, every step as if out of date (-B), so the answer does not depend on what this
    checkout has already built."""
    # Under `make check` the outer make's flags (-w: "Entering directory" lines) reach the environment.
    environment = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MAKELEVEL", "MFLAGS")}
    command = ["make", "--no-print-directory", "-n", "-B", target]
    done = subprocess.run(command, cwd=ROOT, env=environment, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
@pytest.mark.parametrize("document", ["README.md", "CONTRIBUTING.md", "docs/architecture.md"])
def test_make_targets_run_what_their_comments_say(document: str) -> None:
    text = (ROOT / document).read_text(encoding="utf-8")
    claims = re.findall(r"^make (\w[\w-]*)\s+# (.+)$", text, flags=re.MULTILINE)
    assert claims
    for target, comment in claims:
        dry_run = _dry_run(target)
        for tool in TOOLS:
            if tool in comment:
                assert tool in dry_run, f"`make {target}` does not run {tool.strip()}, as its comment says"


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_the_demo_installs_the_package_alone_beside_the_test_environment() -> None:
    """`make demo` needs no extra (it checks one bundled file): installing the test extra made it 958 MB and
    nearly two minutes. Its environment is its own, so that `make setup` and the demo never undo each other."""
    demo, setup = _dry_run("demo"), _dry_run("setup")
    (install,) = [line for line in demo.splitlines() if " pip install " in line]
    assert install.split()[-1] == "." and "[" not in install, install
    demo_python = install.split()[0]
    assert all(not line.startswith(demo_python) for line in setup.splitlines()), "the demo shares .venv"
    assert "verify-contract check examples/results.jsonl" in demo.splitlines()[-1]
