"""Failure budgets at their edges: a bound of 0 is the strictest bound (CLI, library, middleware), counts are
range-checked, the expected grid is counted and never listed, and what a run keeps (events, failures-file
classes) is capped, counted and said truly. The same attacks at their full size: tests/budget/test_budget_attacks.py."""

from __future__ import annotations

import asyncio
import json
import logging
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from verify_contract._budget_caps import COUNT_LIMIT, EVENTS_KEPT, MAX_DISTINCT
from verify_contract.budget import BudgetError, FailureBudget
from verify_contract.cli import main

USABLE = {"reward": 1.0}
MASKED = {"reward": 0.0, "mask_sample": True, "failure_kind": "session_lost"}


def _half_masked(path: Path, lines: int = 100) -> Path:
    path.write_text("".join(json.dumps(MASKED if i % 2 else USABLE) + "\n" for i in range(lines)), encoding="utf-8")
    return path


def _flapping(path: Path, periods: int) -> Path:
    """usable, usable, masked, masked, again: with a window of 3 and --max-masked 0.5, each period's first masked
    window is within the bound (the scope leaves its breach) and its second above it (a new breach event)."""
    period = [USABLE, USABLE, MASKED, MASKED]
    path.write_text("".join(json.dumps(row) + "\n" for row in period * periods), encoding="utf-8")
    return path


FLAPPING_FLAGS = ("--max-masked", "0.5", "--window", "3")


def _json(capsys: pytest.CaptureFixture[str], *arguments: str) -> tuple[int, dict[str, Any]]:
    code = main(["check", *arguments, "--format", "json"])
    return code, json.loads(capsys.readouterr().out)


def _run(*arguments: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "verify_contract", "check", *arguments], capture_output=True, text=True, timeout=120
    )


# -- zero ----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("flags", "code", "verdict", "rule"),
    [
        (["--max-masked", "0"], 3, "breach", "budget-masked-rate"),
        (["--warn-masked", "0"], 0, "warning", "budget-masked-rate"),
        (["--max-consecutive-masked", "0"], 3, "breach", "budget-consecutive-masked"),
        (["--expected", "0"], 0, "ok", None),
    ],
)
def test_a_zero_bound_is_the_strictest_bound(
    flags: list[str], code: int, verdict: str, rule: str | None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    found, report = _json(capsys, str(_half_masked(tmp_path / "run.jsonl")), *flags)
    budget = report["budget"]  # the section is there: a flag of 0 asked for a budget
    assert (found, budget["verdict"], budget["rollouts"], budget["masked"]) == (code, verdict, 100, 50)
    first = budget["first_breach"] or budget["first_warning"]
    assert (first and first["rule"]) == rule
    if flags[0] == "--expected":
        assert budget["expected"] == {"expected": 0, "present": 100, "missing": 0}
    code_text = main(["check", str(tmp_path / "run.jsonl"), *flags])
    assert code_text == code and "failure budget (" in capsys.readouterr().out


def test_the_library_takes_zero_as_a_bound() -> None:
    for settings, verdict, at in (
        ({"max_masked": 0}, "breach", 4),
        ({"warn_masked": 0.0}, "warning", 4),
        ({"max_consecutive_masked": 0}, "breach", 2),
    ):
        budget = FailureBudget(window=4, **settings)  # type: ignore[arg-type]
        for index in range(8):
            budget.observe(MASKED if index == 1 else USABLE)
        assert budget.verdict() == verdict, settings
        first = budget.first_breach or budget.first_warning
        assert first is not None and first.rollout == at, settings


def test_the_middlewares_budget_takes_zero_as_a_bound(caplog: pytest.LogCaptureFixture) -> None:
    from verify_contract.asgi import VerifyContractMiddleware

    budget = FailureBudget(max_masked=0, max_consecutive_masked=0, window=2)
    replies = [json.dumps({**USABLE, "responses_create_params": {}, "response": {"output": []}}).encode()]
    replies.append(json.dumps({**MASKED, "responses_create_params": {}, "response": {"output": []}}).encode())

    async def reply(scope: Any, receive: Any, send: Any) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"application/json")]})
        await send({"type": "http.response.body", "body": scope["state_body"]})

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"{}", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        return None

    middleware = VerifyContractMiddleware(reply, budget=budget, log_interval=0)
    with caplog.at_level(logging.WARNING, logger="verify_contract.asgi"):
        for body in replies:
            scope = {"type": "http", "method": "POST", "path": "/verify", "headers": [], "state_body": body}
            asyncio.run(middleware(scope, receive, send))
    summary = middleware.stats()["budget"]
    assert (summary["rollouts"], summary["masked"], summary["breaches"]) == (2, 1, 2)
    assert summary["first_breach"]["rule"] == "budget-consecutive-masked"
    assert sum("failure budget breach" in record.getMessage() for record in caplog.records) == 2


# -- counts in range -----------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "flags",
    [
        ["--window", str(2**63)],
        ["--max-consecutive-masked", str(2**64)],
        ["--min-samples", str(2**63)],
        ["--expected", str(2**63)],
        ["--expected", f"{2**40}x{2**40}"],
    ],
)
def test_a_count_past_the_limit_is_one_line_and_exit_2(flags: list[str], tmp_path: Path) -> None:
    done = _run(str(_half_masked(tmp_path / "run.jsonl", 4)), *flags)
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    reason = done.stderr.strip().splitlines()[-1]
    assert reason.startswith("verify-contract check: ") and f"{COUNT_LIMIT:,}" in reason, reason


def test_the_library_refuses_counts_past_the_limit() -> None:
    for settings in (
        {"window": 2**63},
        {"window": COUNT_LIMIT + 1},
        {"max_consecutive_masked": 2**64},
        {"expected": 2**63},
        {"expected": (2**40, 2**40)},
    ):
        with pytest.raises(BudgetError):
            FailureBudget(**settings)  # type: ignore[arg-type]
    FailureBudget(window=COUNT_LIMIT, min_samples=1, max_consecutive_masked=COUNT_LIMIT).observe(MASKED)


# -- the expected grid, counted ------------------------------------------------------------------------------
def _peak_rss_kb(*arguments: str) -> tuple[int, int, str]:
    """(exit code, peak RSS in kB, stdout) of ``check ARGS`` in a fresh interpreter."""
    # VmHWM, the peak of this process's own memory: ru_maxrss would carry the forking parent's (pytest's) peak
    # across exec on Linux.
    code = (
        "import sys\n"
        "from verify_contract.cli import main\n"
        "code = main(sys.argv[1:])\n"
        "status = open('/proc/self/status').read()\n"
        "print(status.split('VmHWM:')[1].split()[0], file=sys.stderr)\n"
        "sys.exit(code)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, "check", *arguments], capture_output=True, text=True, timeout=300
    )
    return done.returncode, int(done.stderr.strip().splitlines()[-1]), done.stdout


def test_a_grid_of_a_hundred_million_on_ten_lines_is_counted_not_listed(tmp_path: Path) -> None:
    rows = [{**USABLE, "_ng_task_index": 0, "_ng_rollout_index": index} for index in range(10)]
    path = tmp_path / "run.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    code, peak, out = _peak_rss_kb(str(path), "--expected", "1x100000000", "--max-masked", "0.5", "--format", "json")
    budget = json.loads(out)["budget"]
    assert budget["expected"]["missing"] == 100_000_000 - 10 and budget["expected"]["present"] == 10
    assert code == 3  # 99.99999% of the expected rollouts lost: past --max-masked
    assert peak < 60_000, peak  # kB (17 MB measured); listing the grid took past 1.5 GB in 3 s


def test_the_retry_list_names_the_grids_missing_identities_in_order(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    present = [(0, 1), (2, 0), (9, 9)]  # (9, 9): outside the 3x2 grid, present but not expected
    path = tmp_path / "run.jsonl"
    path.write_text(
        "".join(json.dumps({**USABLE, "_ng_task_index": t, "_ng_rollout_index": r}) + "\n" for t, r in present)
    )
    retry = tmp_path / "retry.jsonl"
    _, report = _json(capsys, str(path), "--expected", "3x2", "--retry-list", str(retry))
    rows = [json.loads(line) for line in retry.read_text().splitlines()]
    assert [(row["_ng_task_index"], row["_ng_rollout_index"]) for row in rows] == [(0, 0), (1, 0), (1, 1), (2, 1)]
    assert {row["why"] for row in rows} == {"missing"}
    assert report["budget"]["expected"] == {"expected": 6, "present": 3, "missing": 4}


# -- what a run keeps: capped, counted, said truly --------------------------------------------------------------
def test_budget_events_past_the_cap_are_counted_and_the_report_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    flapping = _flapping(tmp_path / "run.jsonl", EVENTS_KEPT + 500)  # a breach event per period
    code, report = _json(capsys, str(flapping), *FLAPPING_FLAGS)
    budget = report["budget"]
    assert code == 3 and budget["breaches"] == EVENTS_KEPT + 500
    assert len(budget["events"]) == EVENTS_KEPT and budget["events"][0] == budget["first_breach"]
    assert budget["events"][-1]["rollout"] == 4 * EVENTS_KEPT  # the first ones kept, in order
    assert budget["events_not_kept"] == {"budget-masked-rate": {"breach": 500}}
    main(["check", str(flapping), *FLAPPING_FLAGS])
    text = capsys.readouterr().out
    listed = EVENTS_KEPT + 500 - 20
    assert f"... {listed:,} more budget events (the first {EVENTS_KEPT:,} in --format json, the rest counted)" in text
    # Under the cap the JSON holds every event, as the text says.
    few = _flapping(tmp_path / "few.jsonl", 30)
    _, report = _json(capsys, str(few), *FLAPPING_FLAGS)
    assert len(report["budget"]["events"]) == report["budget"]["breaches"] == 30
    main(["check", str(few), *FLAPPING_FLAGS])
    assert "... 10 more budget events (all in --format json)" in capsys.readouterr().out


def test_failures_file_classes_are_capped_like_groups(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    main_file = _half_masked(tmp_path / "run.jsonl", 10)
    rows = [{"_ng_failure_class": f"class_{index}"} for index in range(MAX_DISTINCT + 500)]
    (tmp_path / "run_failures.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows))
    _, report = _json(capsys, str(main_file))
    counts = report["budget"]["failures_files"][str(tmp_path / "run_failures.jsonl")]
    assert len(counts["classes"]) == MAX_DISTINCT + 1 and counts["classes"]["(other)"] == 500
    assert sum(counts["classes"].values()) == counts["rows"] == len(rows)
    main(["check", str(main_file)])
    line = next(line for line in capsys.readouterr().out.splitlines() if "failures file" in line)
    assert len(line) < 600 and f"classes past the first {MAX_DISTINCT:,} counted as (other)" in line, line


def test_the_library_keeps_no_plot_blocks_unless_asked() -> None:
    plain, plotted = FailureBudget(window=4), FailureBudget(window=4, track_blocks=True)
    for index in range(400):
        for budget in (plain, plotted):
            budget.observe(MASKED if index % 3 else USABLE)
    assert plain.total.blocks == {} and len(plotted.total.blocks) == 100


def test_unreadable_failures_lines_are_all_counted_and_listed_up_to_the_findings_cap(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from verify_contract.check._budget import FailuresFileRead, open_failures
    from verify_contract.check._report import DEFAULT_MAX_FINDINGS
    from verify_contract.check._source import Source

    main_file = _half_masked(tmp_path / "run.jsonl", 10)
    garbage = tmp_path / "run_failures.jsonl"
    garbage.write_text("not json\n" * (DEFAULT_MAX_FINDINGS + 4000) + '{"_ng_failure_class": "x"}\n')
    read = FailuresFileRead()
    rows = open_failures(Source(str(garbage), str(garbage)), (), read)
    assert rows.take() is not None and rows.take() is None  # the one row, past every garbage line
    assert (len(read.findings), read.unlisted, read.unreadable) == (DEFAULT_MAX_FINDINGS, 4000, 5000)
    _, report = _json(capsys, str(main_file))
    assert report["rules"]["budget-sidecar-unreadable"] == DEFAULT_MAX_FINDINGS + 4000
    listed = [f for f in report["findings"] if f["rule"] == "budget-sidecar-unreadable"]
    assert len(listed) == DEFAULT_MAX_FINDINGS and report["budget"]["failed"] == 1


def test_readme_and_help_state_the_caps_the_code_has() -> None:
    """The caps live in one module; README's budget section and check --help say the same numbers."""
    from verify_contract._budget_caps import DEFAULT_WINDOW

    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("## Failures bounded and visible") :]
    section = section[: section.index("\n## ")]
    for text in (f"{MAX_DISTINCT:,} distinct", f"first {EVENTS_KEPT:,} kept", f"(default {DEFAULT_WINDOW})"):
        assert text in section, text
    assert f"10^{len(str(COUNT_LIMIT)) - 1}" in section and 10 ** (len(str(COUNT_LIMIT)) - 1) == COUNT_LIMIT
    shown = _run("--help").stdout
    for text in (f"{MAX_DISTINCT:,} distinct", f"first {EVENTS_KEPT:,} budget events", f"(default: {DEFAULT_WINDOW})"):
        assert text in " ".join(shown.split()), text
