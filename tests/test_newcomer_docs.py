"""What a newcomer meets following the docs: the commands they name do what they say, and the files the
documented steps leave behind are ignored by git."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# Tools a comment may say a make target runs; each must then be in the target's commands.
TOOLS = ("npm", "cargo", "go ", "pip", "python -m generators", "pytest")


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


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_architecture_make_targets_run_what_their_comments_say() -> None:
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    claims = re.findall(r"^make (\w[\w-]*)\s+# (.+)$", text, flags=re.MULTILINE)
    assert claims
    for target, comment in claims:
        dry_run = subprocess.run(["make", "-n", target], cwd=ROOT, capture_output=True, text=True, timeout=60)
        assert dry_run.returncode == 0, dry_run.stderr
        for tool in TOOLS:
            if tool in comment:
                assert tool in dry_run.stdout, f"`make {target}` does not run {tool.strip()}, as its comment says"
