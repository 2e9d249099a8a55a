"""How the reports word what they count: one noun form per count ("1 input", "2 inputs"), thousands separators
throughout, no summary of zeros above an input error, a budget event that prints as its line, and the pydantic
floor of the generated models said where a user reads it."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from verify_contract._counted import counted
from verify_contract.budget import FailureBudget
from verify_contract.cli import main

ROOT = Path(__file__).resolve().parents[2]


def test_counted_is_singular_for_one_and_separates_thousands() -> None:
    assert [counted(n, "input") for n in (0, 1, 2, 1226)] == ["0 inputs", "1 input", "2 inputs", "1,226 inputs"]
    assert counted(1, "reply", "replies") == "1 reply" and counted(3, "reply", "replies") == "3 replies"


def test_one_line_in_one_input_with_one_warning(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    one = tmp_path / "one.jsonl"
    one.write_text(json.dumps({"reward": 1.0, "instance_config": {"mask_sample": True}}) + "\n", encoding="utf-8")
    assert main(["check", str(one)]) == 0
    summary = capsys.readouterr().out.splitlines()[1]
    assert summary.startswith("1 line in 1 input (")
    assert summary.endswith("; 0 errors, 1 warning")


def test_thousands_are_separated_in_every_count_of_the_summary(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    many = tmp_path / "many.jsonl"
    row = json.dumps({"reward": 0.0, "mask_sample": True, "failure_kind": "judge_failed"})
    many.write_text((row + "\n") * 1234, encoding="utf-8")
    main(["check", str(many), "--max-masked", "1", "--window", "1000"])
    text = capsys.readouterr().out.replace(str(many), "FILE")  # a temporary path may hold any number
    assert "1,234 lines in 1 input" in text and "1,234 valid" in text and "1,234 masked" in text
    assert "failure kinds: 1,234 registered" in text and "by rule" not in text
    assert "failure budget (window 1,000; min samples 1,000;" in text
    assert "  1,234 rollouts: 0 usable, 1,234 masked" in text
    # No number of four digits or more is printed without its separator (dates and versions aside).
    bare = re.findall(r"(?<![\d.,])\d{4,}(?![\d.,])", text)
    assert bare == [], bare


def test_a_missing_input_gives_its_error_and_no_summary(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "verify_contract", "check", "missing.jsonl"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == "verify-contract check: missing.jsonl: no such file or directory\n"


def test_upgrade_of_a_missing_input_gives_its_error_alone(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "verify_contract", "upgrade", "missing.jsonl"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == "verify-contract upgrade: missing.jsonl: no such file or directory\n"


def test_an_input_read_beside_a_missing_one_keeps_its_summary(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["check", "missing.jsonl", str(ROOT / "examples" / "results.jsonl")])
    captured = capsys.readouterr()
    assert code == 2
    assert "17 lines in 1 input " in captured.out and "1 input error (on stderr)" in captured.out
    assert "missing.jsonl: no such file or directory" in captured.err


def test_a_budget_event_prints_as_check_prints_it() -> None:
    budget = FailureBudget(max_masked=0.5, window=2)
    events = budget.observe({"reward": 0.0, "mask_sample": True, "failure_kind": "judge_failed"}, ("run.jsonl", 7))
    events += budget.observe({"reward": 0.0, "mask_sample": True, "failure_kind": "judge_failed"}, ("run.jsonl", 8))
    (event,) = events
    assert str(event) == (
        "run.jsonl:8: breach [budget-masked-rate] all rollouts: 100.0% masked or failed in the last 2 rollouts "
        "(2 of 2; kinds: judge_failed 2) (rollout 2)"
    )
    assert event.message in str(event) and f"{event}" == str(event)


def test_a_run_of_one_is_one_rollout() -> None:
    budget = FailureBudget(max_consecutive_masked=0, window=4)
    (event,) = budget.observe({"reward": 0.0, "mask_sample": True, "failure_kind": "judge_failed"})
    assert str(event) == (
        "breach [budget-consecutive-masked] all rollouts: 1 consecutive rollout masked or failed "
        "(kinds: judge_failed 1) (rollout 1)"
    )


def _pydantic_floor() -> str:
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    (floor,) = re.findall(r'"pydantic>=([\d.]+),', text)
    return floor


def test_the_pydantic_floor_is_said_in_generate_help_and_readme() -> None:
    floor = _pydantic_floor()
    shown = subprocess.run(
        [sys.executable, "-m", "verify_contract", "generate", "--help"], capture_output=True, text=True, check=True
    ).stdout
    assert f"pydantic >= {floor}" in shown
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("## Generate bindings") :]
    section = section[: section.index("\n## ", 4)]
    assert f"pydantic >= {floor}" in section


def test_the_middleware_counts_the_replies_it_held_back_in_the_singular_too(caplog: pytest.LogCaptureFixture) -> None:
    import asyncio
    import logging

    from verify_contract.asgi import VerifyContractMiddleware

    body = json.dumps({"reward": "1", "responses_create_params": {}, "response": {"output": []}}).encode()

    async def app(scope: Any, receive: Any, send: Any) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"application/json")]})
        await send({"type": "http.response.body", "body": body})

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: Any) -> None:
        return None

    middleware = VerifyContractMiddleware(app, log_interval=3600)
    scope = {"type": "http", "method": "POST", "path": "/verify", "headers": []}
    with caplog.at_level(logging.WARNING, logger="verify_contract.asgi"):
        asyncio.run(middleware(scope, receive, send))  # logged
        asyncio.run(middleware(scope, receive, send))  # held back: within the interval
        middleware.log_interval = 0
        asyncio.run(middleware(scope, receive, send))  # logged, with the one held back
    first, second = (record.getMessage() for record in caplog.records)
    assert "not logged" not in first
    assert second.endswith("; 1 reply with findings not logged since the last line")
