"""``verify-contract check``: inputs, report, exit codes, --max-findings, --jobs, progress."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from verify_contract.check import CheckOptions, check_paths
from verify_contract.check._report import dumps_report_data
from verify_contract.cli import main
from verify_contract.cli._check import ProgressLine

from corpus_lines import kind_lines, mutated_lines

VALID = b'{"reward": 1.0, "mask_sample": true, "failure_kind": "agent_timeout"}\n'
WARNS = b'{"reward": 0, "instance_config": {"mask_sample": true}}\n'
INVALID = b'{"reward": "1.0"}\n'


def run(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "verify_contract", "check", *args], input=stdin, capture_output=True, check=False
    )


def report_of(*args: str, stdin: bytes | None = None) -> tuple[int, dict[str, Any]]:
    result = run(*args, "--format", "json", stdin=stdin)
    return result.returncode, json.loads(result.stdout)


def test_json_keeps_the_first_versions_keys(tmp_path: Path) -> None:
    path = tmp_path / "a.jsonl"
    path.write_bytes(VALID + INVALID + b"\n" + WARNS)
    code, report = report_of(str(path), "--profile", "core")
    assert code == 1
    assert {"total", "valid", "invalid", "masked", "findings"} <= set(report)
    assert (report["total"], report["valid"], report["invalid"], report["masked"]) == (3, 2, 1, 2)
    assert (report["lines"], report["blank"]) == (4, 1)
    assert report["failure_kinds"] == {"registered": 1, "namespaced": 0, "unregistered": 0}
    assert report["legacy_mask"] == {"used": 1, "only": 1, "divergent": 0}
    assert report["rules"] == {"legacy-mask-only": 1, "reward-type": 1}
    assert [(f["line"], f["rule"], f["severity"]) for f in report["findings"]] == [
        (2, "reward-type", "error"),
        (4, "legacy-mask-only", "warning"),
    ]
    assert report["findings"][0]["message"] == '/reward: "1.0" is not of type "number"'


@pytest.mark.parametrize("findings", [0, 1, 3])
def test_json_report_layout_one_finding_a_line(findings: int) -> None:
    # Indented by two spaces, each finding on a line of its own, in its place among the keys; the text is
    # the data (non-ASCII and control characters included).
    data: dict[str, Any] = {"contract_version": "1.2.0", "rules": {"reward-type": findings}, "findings": []}
    for n in range(findings):
        data["findings"].append({"path": "ö.jsonl", "line": n + 1, "message": 'a "quoted"\nmessage é\u2028'})
    data["input_errors"] = ["x: not found"]
    text = dumps_report_data(data)
    assert json.loads(text) == data and list(json.loads(text)) == list(data)
    lines = text.split("\n")  # not splitlines: a message's U+2028 is no line end to JSON tools
    assert lines[0] == "{" and lines[-1] == "}" and ("ö.jsonl" in text) == bool(findings)
    listed = [line for line in lines if line.startswith('    {"path"')]
    assert len(listed) == findings and all(json.loads(line.rstrip(",")) in data["findings"] for line in listed)
    assert ('"findings": []' in text) == (findings == 0)
    if findings == 1:  # the whole text, once
        assert text == (
            '{\n  "contract_version": "1.2.0",\n  "rules": {\n    "reward-type": 1\n  },\n  "findings": [\n'
            '    {"path": "ö.jsonl", "line": 1, "message": "a \\"quoted\\"\\nmessage é\u2028"}\n  ],\n'
            '  "input_errors": [\n    "x: not found"\n  ]\n}'
        )
    # findings first or last among the keys
    assert json.loads(dumps_report_data({"findings": data["findings"]})) == {"findings": data["findings"]}
    first = {"findings": data["findings"], "lines": 3}
    assert json.loads(dumps_report_data(first)) == first


def test_exit_codes_and_warnings_as_errors(tmp_path: Path) -> None:
    clean, warns = tmp_path / "clean.jsonl", tmp_path / "warns.jsonl"
    clean.write_bytes(VALID * 3)
    warns.write_bytes(VALID + WARNS)
    assert run(str(clean), "--profile", "core").returncode == 0
    assert run(str(warns), "--profile", "core").returncode == 0
    assert run(str(warns), "--profile", "core", "--warnings-as-errors").returncode == 1
    assert run(str(tmp_path / "nope.jsonl")).returncode == 2
    assert run(str(clean), "--jobs", "0").returncode == 2


def test_directories_globs_gzip_and_json_documents(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "a.jsonl").write_bytes(VALID * 2)
    (tmp_path / "sub" / "b.jsonl.gz").write_bytes(gzip.compress(VALID + INVALID))
    (tmp_path / "sub" / "c.json").write_text(json.dumps({"reward": 0.5}, indent=2))
    (tmp_path / "sub" / "ignored.txt").write_bytes(INVALID)
    code, report = report_of(str(tmp_path), "--profile", "core")
    assert (code, report["files"], report["valid"], report["invalid"]) == (1, 3, 4, 1)
    found = report["findings"][0]
    assert found["path"].endswith("b.jsonl.gz") and found["line"] == 2
    code, report = report_of(str(tmp_path / "**" / "*.json*"), "--profile", "core")
    assert (report["files"], report["valid"]) == (3, 4)
    code, report = report_of(str(tmp_path / "sub" / "c.json"), "--profile", "core")
    assert (code, report["lines"], report["valid"]) == (0, 1, 1)


def test_stdin_plain_and_gzip() -> None:
    code, report = report_of("-", "--profile", "core", stdin=VALID + INVALID)
    assert (code, report["valid"], report["invalid"]) == (1, 1, 1)
    assert report["findings"][0]["path"] == "<stdin>"
    code, report = report_of("-", "--profile", "core", stdin=gzip.compress(VALID * 5))
    assert (code, report["valid"]) == (0, 5)


def test_max_findings_caps_the_listing_not_the_counts(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_bytes(INVALID * 50 + VALID)
    code, report = report_of(str(path), "--profile", "core", "--max-findings", "3")
    assert code == 1
    assert (report["invalid"], report["findings_total"], report["rules"]["reward-type"]) == (50, 50, 50)
    assert [f["line"] for f in report["findings"]] == [1, 2, 3]
    text = run(str(path), "--profile", "core", "--max-findings", "0").stdout.decode()
    assert "50 more findings not listed" in text


@pytest.mark.parametrize("profile", ["core", "gym"])
def test_jobs_give_the_single_process_report(tmp_path: Path, profile: str) -> None:
    lines = kind_lines() + mutated_lines(3000, seed=5)
    path = tmp_path / "mixed.jsonl"
    path.write_bytes((b"\n".join(lines) + b"\n") * 20)
    single = check_paths([path], options=CheckOptions(profile=profile, max_findings=500))  # type: ignore[arg-type]
    multi = check_paths([path], options=CheckOptions(profile=profile, max_findings=500, jobs=2))  # type: ignore[arg-type]
    assert single.as_dict() == multi.as_dict()
    assert single.lines == len(lines) * 20 and single.invalid > 1000


def test_no_progress_when_piped(tmp_path: Path) -> None:
    path = tmp_path / "a.jsonl"
    path.write_bytes(VALID * 10)
    assert run(str(path)).stderr == b""


def test_progress_line_draws_a_bar() -> None:
    class Sink:
        text = ""

        def write(self, s: str) -> None:
            self.text += s

        def flush(self) -> None:
            pass

    sink = Sink()
    progress = ProgressLine(sink, 1000)  # type: ignore[arg-type]
    progress.start -= 5  # pretend the run has lasted five seconds
    progress(500, 10)
    assert "50%" in sink.text and "10 lines" in sink.text
    progress.close()
    assert sink.text.endswith("\r\x1b[K")


def test_text_summary(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "a.jsonl"
    path.write_bytes(VALID + INVALID)
    assert main(["check", str(path), "--profile", "core"]) == 1
    out = capsys.readouterr().out
    assert f"{path}:2: error [reward-type]" in out
    assert "2 lines in 1 input (" in out and "1 valid, 1 invalid" in out


def test_a_killed_worker_is_an_input_error_not_a_partial_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from verify_contract.check._workers import WorkerDied
    from verify_contract.cli import _check as check_command

    def killed(*args: object, **kwargs: object) -> None:
        raise WorkerDied("worker process 4242 ended without its results (killed by signal 9)")

    monkeypatch.setattr(check_command, "check_paths", killed)
    path = tmp_path / "one.jsonl"
    path.write_bytes(b'{"reward": 1}\n')
    assert main(["check", "--jobs", "2", str(path)]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and "(killed by signal 9); no report" in captured.err


def test_interrupted_without_a_traceback(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from verify_contract.cli import _check as check_command

    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(check_command, "check_paths", interrupted)
    assert main(["check", "-"]) == 130
    assert capsys.readouterr().err == "verify-contract: interrupted\n"


def test_jobs_stop_with_the_parent_on_interrupt(tmp_path: Path) -> None:
    """^C (SIGINT to the process group, as a terminal sends it) during `--jobs 2`: exit 130, one line on
    stderr, no traceback from the parent or a worker, no worker left running."""
    import os
    import signal
    import time

    path = tmp_path / "slow.jsonl"
    # A number that may overflow takes the reference path on every line: 36 MB, several seconds of work.
    line = b'{"reward": 1e400, "note": "%s"}\n' % (b"x" * 200)
    path.write_bytes(line * 160_000)
    command = [sys.executable, "-m", "verify_contract", "check", "--jobs", "2", str(path)]
    # SIGINT at its default, as in a terminal: a shell without job control starts background commands (a CI
    # step run with `&`, say) with SIGINT ignored, and Python then keeps ignoring it.
    process = subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    time.sleep(0.5)
    os.killpg(process.pid, signal.SIGINT)
    _, err = process.communicate(timeout=60)
    if process.returncode == 0:
        pytest.skip("the run finished before the interrupt")
    assert process.returncode == 130, err
    assert b"Traceback" not in err and err.strip().splitlines() == [b"verify-contract: interrupted"]
    with pytest.raises(ProcessLookupError):
        os.killpg(process.pid, 0)  # the whole group is gone: no worker left behind
