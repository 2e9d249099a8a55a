"""README's tour by role: each command runs as written, from the repository root, and exits as its comment
says (``build/`` stands for a temporary directory, so the test writes nothing into the checkout)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from markdown_blocks import ROOT, blocks

ROLES = ["Training on NeMo Gym", "Serving /verify", "Generating bindings", "Reviewing a contract change", "Archives"]


def _tour() -> list[tuple[str, int, list[str]]]:
    """(role, exit code its comment names, commands), in README's order."""
    (block,) = [b for b in blocks("README.md", "sh") if b.code.startswith("# Training on NeMo Gym")]
    steps: list[tuple[str, int, list[str]]] = []
    for line in block.code.splitlines():
        if line.startswith("# "):
            role = line[2:].partition(":")[0]
            (code,) = re.findall(r"\(exit (\d)", line)
            steps.append((role, int(code), []))
        else:
            steps[-1][2].append(line)
    return steps


def test_the_tour_has_one_example_per_role() -> None:
    assert [role for role, _, _ in _tour()] == ROLES
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert readme.index("## A tour by role") < readme.index("## Installing")  # on the first screens


def test_each_command_runs_as_written(tmp_path: Path) -> None:
    outputs: dict[str, str] = {}
    for role, code, commands in _tour():
        for position, command in enumerate(commands):
            script = command.replace("build/", f"{tmp_path}/")
            script = script.replace("verify-contract ", f"{sys.executable} -m verify_contract ")
            script = re.sub(r"^python ", f"{sys.executable} ", script)
            done = subprocess.run(
                ["bash", "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=300, check=False
            )
            expected = code if position == len(commands) - 1 else 0
            assert done.returncode == expected, (role, command, done.stdout[-2000:], done.stderr[-2000:])
            assert "Traceback" not in done.stderr, (role, command, done.stderr)
            outputs[role] = done.stdout
    assert "BREACH" in outputs["Training on NeMo Gym"] and "browser_env" in outputs["Training on NeMo Gym"]
    assert ": conforms;" in outputs["Serving /verify"]
    assert (tmp_path / "src" / "gym_result.py").is_file()
    assert "required bump: minor" in outputs["Reviewing a contract change"]
    report = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    assert report["files"] == 1 and report["invalid"] == 0 and report["lines"] == report["valid"] > 1000
