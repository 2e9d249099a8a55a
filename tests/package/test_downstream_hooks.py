"""The pre-commit hooks a downstream repository uses (.pre-commit-hooks.yaml): what their example says holds,
and the upgrade hook names where a file needs upgrading even though it runs with --quiet."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import yaml

from verify_contract.contract._versions import DEFAULT_PROFILE

ROOT = Path(__file__).resolve().parents[2]
HOOKS = ROOT / ".pre-commit-hooks.yaml"


def test_example_states_the_real_default_profile_and_a_real_tag() -> None:
    text = HOOKS.read_text(encoding="utf-8")
    claims = re.findall(r"default(?: profile)?(?: is|:) (\w+)", text)
    assert claims and set(claims) == {DEFAULT_PROFILE}, claims
    version = re.findall(r'^version = "(.+)"$', (ROOT / "pyproject.toml").read_text(encoding="utf-8"), re.MULTILINE)[0]
    (rev,) = re.findall(r"^#\s+rev: (\S+)", text, flags=re.MULTILINE)
    assert rev == f"v{version}"  # docs/release.md tags the repository v<version>
    example = yaml.safe_load("\n".join(line[1:] for line in text.splitlines() if line.startswith("#   ")))
    hook_ids = {hook["id"] for hook in yaml.safe_load(text)}
    assert {hook["id"] for hook in example[0]["hooks"]} <= hook_ids


def test_upgrade_hook_names_the_file_and_line(tmp_path: Path) -> None:
    (hook,) = [h for h in yaml.safe_load(HOOKS.read_text(encoding="utf-8")) if h["id"] == "verify-contract-upgrade"]
    results = tmp_path / "results.jsonl"
    lines = [
        '{"reward": 1.0}',
        '{"reward": 0.5, "mask_sample": false}',
        '{"reward": 0, "instance_config": {"mask_sample": true}}',
    ]
    results.write_text("\n".join(lines) + "\n", encoding="utf-8")
    command = shlex.split(hook["entry"])
    assert command[0] == "verify-contract" and "--quiet" in command
    done = subprocess.run(
        [sys.executable, "-m", "verify_contract", *command[1:], str(results)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1
    assert done.stderr.count("\n") == 1 and f"first: {results}:3" in done.stderr, done.stderr
