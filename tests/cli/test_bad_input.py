"""Bad input: each defect is one clear finding on its own line, never a traceback, and the counts add up."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from verify_contract.check import CheckOptions, check_paths
from verify_contract.contract._versions import PROFILES

GOOD = b'{"reward": 1.0, "mask_sample": false}\n'

# (name, the bad line without its newline, expected rule)
BAD_LINES = [
    ("nan", b'{"reward": NaN}', "json-non-finite"),
    ("infinity", b'{"reward": Infinity}', "json-non-finite"),
    ("minus-infinity", b'{"reward": 1, "x": -Infinity}', "json-non-finite"),
    ("overflow", b'{"reward": 1e400}', "json-non-finite"),
    ("huge-integer", b'{"reward": 1' + b"0" * 5000 + b"}", "json-non-finite"),
    ("duplicate-key", b'{"reward": 1, "reward": 1}', "json-duplicate-key"),
    ("nested-duplicate-key", b'{"reward": 1, "a": [{"b": 1, "b": 1}]}', "json-duplicate-key"),
    ("invalid-utf8", b'{"reward": 1, "text": "\xff\xfe"}', "json-syntax"),
    ("surrogate-utf8", b'{"reward": 1, "text": "\xed\xa0\x80"}', "json-syntax"),
    ("bom", b'\xef\xbb\xbf{"reward": 1}', "json-syntax"),
    ("top-level-array", b'[{"reward": 1}]', "document-type"),
    ("top-level-scalar", b"0.5", "document-type"),
    ("top-level-string", b'"reward"', "document-type"),
    ("deep-10000", b'{"reward": 1, "x": ' + b"[" * 10000 + b"]" * 10000 + b"}", "json-too-deep"),
    ("deep-101", b"[" * 101 + b"]" * 101, "json-too-deep"),
    ("two-values", b'{"reward": 1} {"reward": 2}', "json-syntax"),
    ("control-char", b'{"reward": 1, "x": "a\x01b"}', "json-syntax"),
]


def _check(tmp_path: Path, content: bytes, name: str = "input.jsonl", **options: Any) -> dict[str, Any]:
    path = tmp_path / name
    path.write_bytes(content)
    return check_paths([path], options=CheckOptions(profile="core", **options)).as_dict()


def _accounted(report: dict[str, Any]) -> None:
    assert report["lines"] == report["valid"] + report["invalid"] + report["blank"]
    assert report["total"] == report["valid"] + report["invalid"]


@pytest.mark.parametrize(("name", "line", "rule"), BAD_LINES, ids=[b[0] for b in BAD_LINES])
@pytest.mark.parametrize("fast", [True, False], ids=["fast", "reference"])
def test_one_clear_finding_on_its_line(tmp_path: Path, name: str, line: bytes, rule: str, fast: bool) -> None:
    report = _check(tmp_path, GOOD + line + b"\n" + GOOD, fast=fast)
    _accounted(report)
    assert (report["lines"], report["valid"], report["invalid"]) == (3, 2, 1)
    assert [(f["line"], f["rule"]) for f in report["findings"]] == [(2, rule)]
    assert report["findings"][0]["message"]


def test_crlf_and_blank_lines(tmp_path: Path) -> None:
    content = GOOD.replace(b"\n", b"\r\n") + b"\r\n" + b"   \n" + b"\t\n" + GOOD
    report = _check(tmp_path, content)
    _accounted(report)
    assert (report["lines"], report["valid"], report["invalid"], report["blank"]) == (5, 2, 0, 3)


def test_truncated_last_line(tmp_path: Path) -> None:
    report = _check(tmp_path, GOOD + b'{"reward": 1, "text": "cut he')
    _accounted(report)
    assert [(f["line"], f["rule"]) for f in report["findings"]] == [(2, "json-syntax")]
    assert "line 1 column" in report["findings"][0]["message"]


def test_last_line_without_newline_is_still_checked(tmp_path: Path) -> None:
    report = _check(tmp_path, GOOD + GOOD.rstrip(b"\n"))
    assert (report["lines"], report["valid"]) == (2, 2)


def test_binary_file(tmp_path: Path) -> None:
    data = bytes(range(256)) * 64 + b"\x00\x01\n\xff\xfe"
    report = _check(tmp_path, data)
    _accounted(report)
    assert report["valid"] == 0 and report["invalid"] == report["lines"] - report["blank"] >= 1
    assert {f["rule"] for f in report["findings"]} == {"json-syntax"}


def test_hundred_megabyte_line(tmp_path: Path) -> None:
    # A valid 100 MB line is one valid document; the same line cut short is one json-syntax finding.
    text = b"x" * (100 * 1024 * 1024)
    line = b'{"reward": 1, "text": "' + text + b'"}'
    report = _check(tmp_path, line + b"\n" + line[:-2] + b"\n" + GOOD)
    _accounted(report)
    assert (report["lines"], report["valid"], report["invalid"]) == (3, 2, 1)
    assert [(f["line"], f["rule"]) for f in report["findings"]] == [(2, "json-syntax")]


def test_unreadable_and_missing_paths(tmp_path: Path) -> None:
    good = tmp_path / "good.jsonl"
    good.write_bytes(GOOD)
    directory_named_like_a_file = tmp_path / "dir.jsonl"
    directory_named_like_a_file.mkdir()
    (tmp_path / "dangling.jsonl").symlink_to(tmp_path / "nowhere")
    paths = [good, tmp_path / "missing.jsonl", tmp_path / "dangling.jsonl", tmp_path / "dir.jsonl" / "x.json"]
    report = check_paths(paths, profile="core")
    assert report.valid == 1
    assert len(report.input_errors) == 3
    assert all("No such file" in e or "no such file" in e for e in report.input_errors)


def test_unreadable_path_is_exit_2_without_traceback(tmp_path: Path) -> None:
    good = tmp_path / "good.jsonl"
    good.write_bytes(GOOD)
    empty_dir = tmp_path / "empty"
    empty_dir.mkdir()
    result = _cli("check", str(good), str(empty_dir), str(tmp_path / "missing.jsonl"), "--profile", "core")
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    assert "missing.jsonl: no such file or directory" in result.stderr
    assert "empty: no .json or .jsonl files" in result.stderr
    assert "1 valid" in result.stdout  # the readable input is still checked and reported


def test_corrupt_gzip_keeps_what_was_read(tmp_path: Path) -> None:
    import gzip

    whole = gzip.compress(GOOD * 1000)
    path = tmp_path / "cut.jsonl.gz"
    path.write_bytes(whole[: len(whole) // 2])
    report = check_paths([path], profile="core")
    assert report.input_errors and "cut.jsonl.gz" in report.input_errors[0]
    assert report.invalid == 0 and report.lines == report.valid + report.blank


def _cli(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "verify_contract", *args],
        input=stdin.decode("utf-8", "replace") if stdin is not None else None,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONWARNINGS": "error"},
        check=False,
    )


def test_cli_never_tracebacks_on_bad_lines(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_bytes(b"".join(line + b"\n" for _, line, _ in BAD_LINES) + bytes(range(256)))
    result = _cli("check", str(path), "--profile", "core", "--format", "json")
    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stderr
    report = json.loads(result.stdout)
    _accounted(report)
    assert report["invalid"] >= len(BAD_LINES)


@pytest.mark.parametrize("target", ["python-pydantic", "constants"])
def test_generate_refuses_a_profile_the_model_lacks(tmp_path: Path, target: str) -> None:
    """The profiles are the model's (no fixed list in the parser): an unknown one is one line, nothing written."""
    result = _cli("generate", target, "--out", str(tmp_path / "out"), "--profile", "nope")
    assert result.returncode == 2, result.stderr
    assert result.stderr.count("\n") == 1 and "no profile 'nope'" in result.stderr, result.stderr
    assert all(profile in result.stderr for profile in PROFILES) and not (tmp_path / "out").exists()
