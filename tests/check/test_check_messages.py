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


@pytest.mark.parametrize("mode", [(), ("--reference-only",)], ids=["pre-check", "reference"])
def test_values_are_spelled_as_json(tmp_path: Path, mode: tuple[str, ...]) -> None:
    results = tmp_path / "results.jsonl"
    documents = [
        b'{"reward": true}',
        b'{"reward": null}',
        b'{"reward": 0, "failure_kind": "Bad Kind"}',
        b'{"reward": 0, "failure_kind": "my_thing"}',
        b'{"reward": 0, "instance_config": {"mask_sample": "x"}}',
    ]
    results.write_bytes(b"\n".join(documents) + b"\n")
    findings = [line for line in _check(results, *mode).splitlines() if line.startswith(str(results))]
    assert len(findings) == len(documents)
    assert 'true is not of type "number"' in findings[0] and 'null is not of type "number"' in findings[1]
    assert '"Bad Kind" is not a failure-kind name' in findings[2] and '"my_thing" is not registered' in findings[3]
    assert '"x" is not of type "boolean"' in findings[4]
    for line in findings:
        message = line.split("] ", 1)[1]
        assert "True" not in message and "None" not in message and "'" not in message.split("(use")[0], line
