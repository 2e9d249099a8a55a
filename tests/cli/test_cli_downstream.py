"""The command line as a downstream user meets it: closed pipes, --version, the inputs people really have
(JSON arrays, JSON Lines saved as .json, UTF-16, a BOM, a cut line), huge messages, and whether the compiled
pre-check ran."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from verify_contract.check import _fastpath as fastpath
from verify_contract.contract._versions import CONTRACT_VERSIONS, LATEST_VERSION

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "results.jsonl"
EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE, what a shell reports for grep whose reader went away


def cli(*args: str, cwd: Path = ROOT, stdin: bytes | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "verify_contract", *args],
        cwd=cwd,
        input=stdin.decode() if stdin is not None else None,
        capture_output=True,
        text=True,
        check=False,
    )


def into_closed_pipe(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    """Run with stdout a pipe whose reader is already gone: the first write fails, deterministically."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        return subprocess.run(
            [sys.executable, "-m", "verify_contract", *args],
            cwd=cwd,
            stdout=write_end,
            stderr=subprocess.PIPE,
            text=True,
            check=False,
        )
    finally:
        os.close(write_end)


@pytest.mark.parametrize(
    ("args", "cwd"),
    [
        (("check", str(EXAMPLES)), ROOT),
        (("check", str(EXAMPLES), "--format", "json"), ROOT),
        (("diff", "schema/versions/1.1.0", "schema/versions/1.2.0"), ROOT),
        (("conformance", "--consumer", "fixtures.readers:nemo_rl_mask"), ROOT / "tests"),
        (("upgrade", str(EXAMPLES)), ROOT),
    ],
    ids=["check", "check-json", "diff", "conformance", "upgrade"],
)
def test_a_closed_pipe_ends_quietly(args: tuple[str, ...], cwd: Path) -> None:
    result = into_closed_pipe(*args, cwd=cwd)
    assert "Traceback" not in result.stderr and "BrokenPipeError" not in result.stderr, result.stderr
    assert result.stderr == ""
    assert result.returncode == EXIT_BROKEN_PIPE


def test_piped_into_head(tmp_path: Path) -> None:
    """The real thing: `verify-contract check big.jsonl | head -2`, more output than a pipe buffer holds."""
    big = tmp_path / "big.jsonl"
    big.write_text('{"reward": "1"}\n' * 20_000)
    producer = subprocess.Popen(
        [sys.executable, "-m", "verify_contract", "check", str(big), "--max-findings", "20000"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert producer.stdout is not None and producer.stderr is not None
    head = subprocess.run(["head", "-2"], stdin=producer.stdout, capture_output=True, check=True)
    producer.stdout.close()
    error = producer.stderr.read().decode()
    assert producer.wait() == EXIT_BROKEN_PIPE and error == "", error
    assert len(head.stdout.splitlines()) == 2


def test_version_names_package_and_contract() -> None:
    result = cli("--version")
    assert result.returncode == 0
    assert result.stdout.startswith("verify-contract 0.") and f"contract {LATEST_VERSION}" in result.stdout
    assert all(version in result.stdout for version in CONTRACT_VERSIONS)


def test_a_json_array_is_refused_with_a_one_line_hint(tmp_path: Path) -> None:
    rows = [{"reward": 1, "text": "x" * 1000}] * 1700  # 1.7 MB, as a results dump
    path = tmp_path / "results.json"
    path.write_text(json.dumps(rows))
    result = cli("check", str(path))
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and "jq -c '.[]'" in result.stderr and "JSON array" in result.stderr
    assert len(result.stdout) < 1000 and "xxxx" not in result.stdout + result.stderr


def test_json_lines_saved_as_json_get_a_hint(tmp_path: Path) -> None:
    path = tmp_path / "rows.json"
    path.write_text('{"reward": 1}\n{"reward": 2}\n')
    result = cli("check", str(path))
    assert result.returncode == 2 and "JSON Lines" in result.stderr and ".jsonl" in result.stderr
    assert "Extra data" not in result.stdout + result.stderr
    pretty = tmp_path / "one.json"
    pretty.write_text(json.dumps({"reward": 1, "extra": {"a": 1}}, indent=2))
    assert cli("check", str(pretty)).returncode == 0  # one pretty-printed document is what .json means


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-16-be"])
def test_utf16_gets_a_hint(tmp_path: Path, encoding: str) -> None:
    path = tmp_path / "rows.jsonl"
    path.write_bytes('{"reward": 1}\n{"reward": 2}\n'.encode(encoding))
    result = cli("check", str(path))
    assert result.returncode == 2 and "UTF-16" in result.stderr and "iconv" in result.stderr


def test_a_bom_gets_a_hint(tmp_path: Path) -> None:
    path = tmp_path / "rows.jsonl"
    path.write_bytes(b'\xef\xbb\xbf{"reward": 1}\n{"reward": 2}\n')
    result = cli("check", str(path))
    assert result.returncode == 1 and f"hint: {path}:1 starts with a byte order mark" in result.stdout
    report = json.loads(cli("check", str(path), "--format", "json").stdout)
    assert any("byte order mark" in hint for hint in report["hints"])


def test_a_cut_first_line_is_reported_on_its_own_line(tmp_path: Path) -> None:
    path = tmp_path / "rows.jsonl"
    path.write_text('{"reward": 1, "mask_sample": tr\n{"reward": 2}\n')
    for extra in ((), ("--reference-only",)):
        report = json.loads(cli("check", str(path), "--format", "json", *extra).stdout)
        (found,) = report["findings"]
        assert found["line"] == 1 and "line 1 column" in found["message"], found


def test_messages_are_capped(tmp_path: Path) -> None:
    path = tmp_path / "rows.jsonl"
    path.write_text(json.dumps({"reward": "x" * 100_000}) + "\n")
    text = cli("check", str(path))
    assert text.returncode == 1 and len(text.stdout) < 2000 and 'x\u2026 is not of type "number"' in text.stdout
    report = json.loads(cli("check", str(path), "--format", "json").stdout)
    assert len(report["findings"][0]["message"]) < 400


def test_input_errors_are_printed_once(tmp_path: Path) -> None:
    (tmp_path / "present.jsonl").write_text('{"reward": 1.0}\n', encoding="utf-8")
    result = cli("check", str(tmp_path / "missing.jsonl"), str(tmp_path / "present.jsonl"))
    combined = result.stdout + result.stderr
    assert result.returncode == 2 and combined.count("no such file or directory") == 1
    assert "1 input error (on stderr)" in result.stdout


def test_the_report_says_whether_the_precheck_ran() -> None:
    expected = "compiled" if fastpath.available() else "not built"
    assert json.loads(cli("check", str(EXAMPLES), "--format", "json").stdout)["precheck"] == expected
    assert f"pre-check: {expected}" in cli("check", str(EXAMPLES)).stdout
    off = cli("check", str(EXAMPLES), "--reference-only", "--format", "json")
    assert json.loads(off.stdout)["precheck"] == "off"
    # Without the compiled module (no compiler at install time) the report says so.
    code = (
        "import sys, verify_contract.check._fastpath as f; f._native = None; from verify_contract.cli import main; "
        f"sys.exit(main(['check', {str(EXAMPLES)!r}]))"
    )
    missing = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert "pre-check: not built" in missing.stdout and "set CC" in missing.stdout


def test_examples_pass_under_the_default_profile() -> None:
    """README shows `verify-contract check examples/results.jsonl` passing with no --profile: core is the default."""
    result = cli("check", "examples/results.jsonl")
    assert result.returncode == 0, result.stdout
    assert "profile core" in result.stdout
    help_text = " ".join(cli("check", "--help").stdout.split())
    assert "default: core" in help_text
