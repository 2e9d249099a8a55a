"""Every Python block of README.md and SPEC.md runs, and the output README shows is the output it gets."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from markdown_blocks import ROOT, Block, blocks, run_block

BLOCKS = [block for document in ("README.md", "SPEC.md") for block in blocks(document)]


def test_there_are_blocks_to_run() -> None:
    assert {b.document for b in BLOCKS} == {"README.md", "SPEC.md"} and len(BLOCKS) >= 5


@pytest.mark.parametrize("block", BLOCKS, ids=[b.id for b in BLOCKS])
def test_python_block_runs(block: Block, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if "def test_" not in block.code:
        monkeypatch.chdir(ROOT)
        run_block(block)  # raises on an undefined name or a failed assert
        return
    # A block written for pytest (the plugin's fixtures) runs under pytest, as a downstream repo would.
    (tmp_path / "test_block.py").write_text(block.code, encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tmp_path)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout
    assert " passed" in result.stdout and "skipped" not in result.stdout


def test_the_readme_demo_output_is_true() -> None:
    """`make demo` runs `verify-contract check examples/results.jsonl` (default profile); README shows it."""
    shown = next(b for b in blocks("README.md", "") if "examples/results.jsonl:" in b.code)
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert "verify-contract check examples/results.jsonl\n" in makefile
    result = subprocess.run(
        [sys.executable, "-m", "verify_contract", "check", "examples/results.jsonl"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0
    actual = result.stdout.splitlines()
    expected = [line for line in shown.code.splitlines() if line != "..."]
    if "pre-check: compiled" not in actual:  # an installation without a C compiler says so instead
        expected = [line for line in expected if not line.startswith("pre-check:")]
    assert expected[0] == actual[0]
    assert expected[1:] == actual[-len(expected) + 1 :]


def test_the_readme_storm_output_is_true(tmp_path: Path) -> None:
    """README's failure-budget example, run as shown in a fresh directory, prints what README shows."""
    commands = next(b for b in blocks("README.md", "bash") if "examples/storm.py run" in b.code).code
    shown = next(b for b in blocks("README.md", "") if "failure budget (window 64" in b.code).code
    script = commands.replace("python examples/storm.py", f"{sys.executable} {ROOT / 'examples' / 'storm.py'}")
    script = script.replace("verify-contract check", f"{sys.executable} -m verify_contract check")
    result = subprocess.run(["bash", "-c", script], cwd=tmp_path, capture_output=True, text=True, check=False)
    assert result.returncode == 3, result.stderr
    printed = result.stdout.splitlines()
    assert printed[:2] == ["run/rollouts.jsonl", "run/rollouts_failures.jsonl"]  # what storm.py wrote
    assert printed[2:] == shown.splitlines()
    retry = (tmp_path / "retry.jsonl").read_text().splitlines()
    assert len(retry) == 482 and '"why": "missing"' in retry[-1]
    assert (tmp_path / "run.prom").stat().st_size > 0 and (tmp_path / "storm.png").stat().st_size > 10_000
