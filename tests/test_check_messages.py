"""What `check` tells a user beside its findings: a hint names the place it is about, and a syntax finding's
line and column say what they count from (the document, which in JSON Lines is the file's line)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

BOM = b"\xef\xbb\xbf"


def _check(path: Path, *extra: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "verify_contract", "check", *extra, str(path)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1, done.stderr
    return done.stdout


@pytest.mark.parametrize("mode", [(), ("--reference-only",)], ids=["pre-check", "reference"])
def test_bom_hint_names_the_line_it_is_on(tmp_path: Path, mode: tuple[str, ...]) -> None:
    results = tmp_path / "results.jsonl"
    results.write_bytes(b'{"reward": 1}\n' * 4 + BOM + b'{"reward": 1}\n')
    (hint,) = [line for line in _check(results, *mode).splitlines() if line.startswith("hint:")]
    assert f"{results}:5 starts with a byte order mark" in hint and "sed -i '5s/" in hint and "'1s/" not in hint


@pytest.mark.parametrize("mode", [(), ("--reference-only",)], ids=["pre-check", "reference"])
def test_syntax_position_says_it_counts_within_the_document(tmp_path: Path, mode: tuple[str, ...]) -> None:
    results = tmp_path / "results.jsonl"
    results.write_bytes(b'{"reward": 1}\n{"reward": 1,}\n')
    (finding,) = [line for line in _check(results, *mode).splitlines() if "[json-syntax]" in line]
    assert finding.startswith(f"{results}:2: ") and "line 1 column 14 of the document:" in finding
