"""SPEC 2.1's one finding per text, and the defects the differential fuzzer found in the reference:
the same rule at any call depth and in any process, never an exception, JSON whitespace only is blank."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from verify_contract import parse_json
from verify_contract.check import CheckOptions, check_bytes, check_paths
from verify_contract.reference._jsonio import first_defect

DEEP_CUT = b'{"reward": 0, "x": ' + b"[" * 980 + b"1"


@pytest.mark.parametrize(
    ("text", "rule"),
    [
        ('{"reward": 0, "failure_reason": "\\ud800\u00e9"}', "json-syntax"),  # crashed formatting its message
        ('"\\ud800\\ud800\\udc00"', "json-syntax"),
        ('{"reward": "", "reward": 1e400', "json-duplicate-key"),  # was json-non-finite (duplicate at close)
        ('{"a": 1, "a": NaN}', "json-duplicate-key"),
        ('{"a": NaN, "a": 1}', "json-non-finite"),
        ('{"reward": 0, "x": "\\udc00", "reward": 1}', "json-syntax"),  # surrogates were checked last
        ('{"x": ' + "[" * 101 + "]" * 101 + ', "x": 1}', "json-too-deep"),  # depth was checked last
        ("-NaN", "json-syntax"),
        ('{"": 0NaN', "json-syntax"),
        ('{"reward": 1' + "0" * 340 + '., "x": 1}', "json-syntax"),
        ("\x0b{}", "json-syntax"),
        (" \t\r\n", "json-syntax"),
    ],
)
def test_first_defect_in_text_order(text: str, rule: str) -> None:
    found = parse_json(text.encode("utf-8")).finding
    assert found is not None and found.rule == rule, found
    scanned = first_defect(text)  # the full scan names the same defect (Python's json words syntax errors)
    assert scanned is not None and scanned.rule == found.rule
    assert found.rule == "json-syntax" or scanned == found


def test_deep_nesting_cut_short_is_the_same_at_any_call_depth() -> None:
    def nested(levels: int) -> str | None:
        if levels:
            return nested(levels - 1)
        found = parse_json(DEEP_CUT).finding
        return found and found.rule

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(2000)
    try:
        # Near the top and close to the recursion limit: Python's json module fails differently there.
        assert {nested(0), nested(900), nested(1700)} == {"json-too-deep"}
    finally:
        sys.setrecursionlimit(limit)


def _rules(path: Path, jobs: int) -> list[tuple[int | None, str]]:
    report = check_paths([path], options=CheckOptions(jobs=jobs, profile="core"))
    return [(f.line, f.finding.rule) for f in report.findings]


def test_check_with_two_jobs_reports_what_one_process_does(tmp_path: Path) -> None:
    path = tmp_path / "deep.jsonl"
    path.write_bytes(b'{"reward": 1}\n' + DEEP_CUT + b'\n{"a": 1, "a": NaN}\n')
    assert _rules(path, 1) == _rules(path, 2) == [(2, "json-too-deep"), (3, "json-duplicate-key")]


def test_whitespace_that_json_does_not_know_is_not_blank(tmp_path: Path) -> None:
    jsonl = tmp_path / "lines.jsonl"
    jsonl.write_bytes(b'{"reward": 1}\n\x0b\n \t\r\n\x0c\n')
    report = check_paths([jsonl], options=CheckOptions(profile="core"))
    assert (report.blank, [(f.line, f.finding.rule) for f in report.findings]) == (
        1,
        [(2, "json-syntax"), (4, "json-syntax")],
    )
    for content in (b"", b" \n"):
        document = tmp_path / "empty.json"
        document.write_bytes(content)
        report = check_paths([document], options=CheckOptions(profile="core"))
        assert (report.blank, [f.finding.rule for f in report.findings]) == (0, ["json-syntax"])


def test_upgrade_refuses_a_lone_surrogate_without_a_traceback(tmp_path: Path) -> None:
    path = tmp_path / "rows.jsonl"
    path.write_bytes(b'{"reward": 0, "failure_reason": "\\ud800\xc3\xa9"}\n')
    done = subprocess.run(
        [sys.executable, "-m", "verify_contract", "upgrade", "--profile", "core", str(path)],
        capture_output=True,
        check=False,
    )
    assert b"Traceback" not in done.stderr
    assert b"json-syntax" in done.stdout + done.stderr


@pytest.mark.parametrize(
    "lines",
    [
        [b'{"reward": NaN}', b'{"a": 1, "a": NaN, "reward": 0}'],  # same 'N' key, a duplicate comes first
        [b'{"a": 1, "a": NaN, "reward": 0}', b'{"reward": NaN}'],
        [b'{"b": {"c": 1, "c": 2}, "reward": 0}', b'{"c": 0, "c": 1, "b": {"c": 1, "c": 2}, "reward": 0}'],
    ],
)
def test_memo_keys_follow_text_order(lines: list[bytes]) -> None:
    # The compiled pre-check keys a line by its first defect in Python's json order; a key shared by lines
    # whose first defects in text order differ must not share a finding.
    data = b"\n".join(lines * 3) + b"\n"
    fast, slow = (check_bytes(data, CheckOptions(profile="core", fast=fast)) for fast in (True, False))
    listing = [(f.line, f.finding) for f in fast.findings]
    assert listing == [(f.line, f.finding) for f in slow.findings]
    assert [rule for _, rule in sorted({(line, f.rule) for line, f in listing})] == [
        parse_json(line).finding.rule
        for line in lines * 3  # type: ignore[union-attr]
    ]
