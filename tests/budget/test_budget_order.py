"""SPEC 11.1's order of a main file and its failures file: merged by rollout identity where both rows carry one,
by file order otherwise, in the library (``ordered_rollouts``), ``check`` (every engine and path), ``--follow``
(by arrival) and the plot; each file read once, a row at a time."""

from __future__ import annotations

import itertools
import json
import random
from pathlib import Path
from typing import Any

import pytest

from verify_contract.budget import FailureBudget, failure_row_first, ordered_rollouts
from verify_contract.check import _run as check
from verify_contract.check._budget import BudgetRun, FactSpec
from verify_contract.check._lines import CheckOptions
from verify_contract.cli import main

TASKS, REPEATS = 320, 4
STORM_TASKS = range(34, 316)


def _row(task: int | None, rollout: int | None = 0, **members: Any) -> dict[str, Any]:
    row: dict[str, Any] = dict(members)
    if task is not None:
        row.update(_ng_task_index=task, _ng_rollout_index=rollout)
    return row


def _write(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def _storm_of_failed_attempts(directory: Path) -> tuple[Path, list[dict[str, Any]], list[dict[str, Any]]]:
    """The issue's run: every rollout ends with a usable reply, but at tasks 34-315 half the attempts failed
    first (a failures-file row each, no reply): the storm is only in the failures file."""
    chance = random.Random(34)
    main_rows, failures = [], []
    for task in range(TASKS):
        for rollout in range(REPEATS):
            if task in STORM_TASKS and chance.random() < 0.5:
                failures.append(_row(task, rollout, _ng_failure_class="agent_run_error"))
            main_rows.append(_row(task, rollout, reward=1.0))
    _write(directory / "run_failures.jsonl", failures)
    return _write(directory / "run.jsonl", main_rows), main_rows, failures


# -- the rule, in the library --------------------------------------------------------------------------------
def test_the_rule_by_identity_ties_and_rows_without_one() -> None:
    assert failure_row_first((3, 1), (3, 0)) and failure_row_first((3, 1), (3, 1))  # a tie: an earlier attempt
    assert not failure_row_first((3, 1), (3, 2)) and not failure_row_first((2, 9), (3, 0))
    assert not failure_row_first(None, (0, 0)) and not failure_row_first((9, 9), None)  # file order: main first


def test_ordered_rollouts_merges_by_identity_and_keeps_each_files_order() -> None:
    main_rows = [_row(0), _row(None, reward=1), _row(2), _row(5), _row(1)]  # the last is out of order
    failures = [_row(0, _ng_failure_class="a"), _row(3), _row(None), _row(0)]
    merged = list(ordered_rollouts(main_rows, failures))
    assert merged == [
        (failures[0], True),  # (0, 0): before the main row of the same identity
        (main_rows[0], False),
        (main_rows[1], False),  # no identity: next in its file
        (main_rows[2], False),
        (failures[1], True),  # (3, 0) goes before (5, 0)
        (main_rows[3], False),
        (main_rows[4], False),  # out of order in its file: merged, not sorted
        (failures[2], True),  # no identity: holds its file back until the main file ends
        (failures[3], True),
    ]
    assert [row for row, failed in merged if not failed] == main_rows  # each file's own order kept


def test_ordered_rollouts_holds_one_row_of_each_file() -> None:
    """Endless files merge lazily: the n-th merged row is there after reading about n rows of each."""
    taken = {"main": 0, "failures": 0}

    def endless(name: str, failed: bool) -> Any:
        for task in itertools.count():
            taken[name] += 1
            yield _row(task, 1 if not failed else 0)

    merged = ordered_rollouts(endless("main", False), endless("failures", True))
    first = list(itertools.islice(merged, 10_000))
    assert [failed for _, failed in first[:4]] == [True, False, True, False]
    assert taken["main"] <= 5_001 and taken["failures"] <= 5_002


# -- check ---------------------------------------------------------------------------------------------------
def test_a_storm_of_failed_attempts_is_seen_at_its_first_window(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    main_file, main_rows, failures = _storm_of_failed_attempts(tmp_path)
    code = main(["check", str(main_file), "--max-masked", "0.2", "--warn-masked", "0.1", "--format", "json"])
    budget = json.loads(capsys.readouterr().out)["budget"]
    assert code == 3
    assert budget["rollouts"] == len(main_rows) + len(failures) and budget["failed"] == len(failures)
    warning, breach = budget["first_warning"], budget["first_breach"]
    # Both are at failures-file rows of the storm's first tasks, not after the 1,280 main rows.
    for event in (warning, breach):
        assert event["file"].endswith("run_failures.jsonl")
        task = failures[event["line"] - 1]["_ng_task_index"]
        assert STORM_TASKS.start <= task < STORM_TASKS.start + 20, event
        assert event["rollout"] < (STORM_TASKS.start + 20) * REPEATS * 1.5, event
    # Without the merge the storm was seen at the end: the failures rows came after every main row.
    assert warning["rollout"] < len(main_rows) // 4


def test_rows_without_identity_keep_the_file_order(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _write(tmp_path / "run.jsonl", [_row(t, reward=1.0) for t in range(100)])
    _write(tmp_path / "run_failures.jsonl", [{"_ng_failure_class": "agent_run_error"}] * 20)
    code = main(["check", str(tmp_path / "run.jsonl"), "--max-masked", "0.1", "--window", "10", "--format", "json"])
    breach = json.loads(capsys.readouterr().out)["budget"]["first_breach"]
    assert code == 3 and breach["rollout"] == 102 and breach["file"].endswith("run_failures.jsonl")


@pytest.mark.parametrize("compiled", [True, False], ids=["compiled", "python"])
@pytest.mark.parametrize("seed", range(25))
def test_check_merges_as_the_library_does(
    seed: int, compiled: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """check's merge (the bulk window pass cut where failures rows go, or row by row with groups and
    identities) against the library fed through ordered_rollouts, on random files: identities mostly in
    order, some missing or out of order, blank and broken lines, several chunkings and --jobs."""
    from verify_contract import _window as window_pass
    from verify_contract.check import _fastpath as fastpath
    from verify_contract.check import _inputs as inputs

    if not compiled:
        monkeypatch.setattr(fastpath, "_native", None)
        monkeypatch.setattr(window_pass, "_native", None)
    elif fastpath._native is None:
        pytest.skip("the compiled pre-check is not built")
    chance = random.Random(seed)
    window = chance.choice([1, 3, 8])
    settings: dict[str, Any] = {
        "max_masked": chance.choice([0.0, 0.3, None]),
        "warn_masked": chance.choice([None, 0.1]),
        "window": window,
        "min_samples": chance.randint(1, window),
        "max_consecutive_masked": chance.choice([None, 0, 2]),
        "track_blocks": True,
    }
    grouped = chance.random() < 0.3
    if grouped:
        settings["group_by"] = ["env"]
    lines, documents, failures = [], [], []
    for task in range(chance.randint(1, 120)):
        identity = None if chance.random() < 0.05 else task
        if chance.random() < 0.05:
            identity = chance.randint(0, 120)  # out of order
        if chance.random() < 0.25:
            failures.append(_row(identity, _ng_failure_class=chance.choice(["agent_run_error", "x"]), env="a"))
        draw = chance.random()
        if draw < 0.04:
            lines.append("")
            continue
        if draw < 0.08:
            lines.append(json.dumps(_row(task, reward="1")))  # breaks the contract: failed
            documents.append((json.loads(lines[-1]), False))
            continue
        row = _row(identity, reward=1.0, env=chance.choice(["a", "b"]))
        if chance.random() < 0.3:
            row.update(reward=0.0, mask_sample=True, failure_kind="session_lost")
        lines.append(json.dumps(row))
        documents.append((row, True))
    main_file = tmp_path / "run.jsonl"
    main_file.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    _write(tmp_path / "run_failures.jsonl", failures)

    library = FailureBudget(**settings)
    validity = {id(row): valid for row, valid in documents}
    for row, failed in ordered_rollouts([row for row, _ in documents], failures):
        if failed:
            library.observe_failure(row)
        else:
            library.observe(row, valid=validity[id(row)])
    monkeypatch.setattr(inputs, "CHUNK_BYTES", chance.choice([64, 700, 1 << 20]))
    cli = BudgetRun(FailureBudget(**settings), FactSpec(FailureBudget(**settings).group_paths))
    options = CheckOptions(facts=cli.spec, fast=compiled, jobs=chance.choice([1, 2]))
    check.check_paths([main_file], options=options, budget=cli)
    mine, theirs = cli.budget.summary(), library.summary()
    for summary in (mine, theirs):  # the library was given no file names
        for event in (summary["first_breach"], summary["first_warning"]):
            if event is not None:
                event.pop("file", None), event.pop("line", None)
        summary["longest_masked_run_at"] = None
    assert mine == theirs
    assert cli.budget.blocks() == library.blocks()  # the plot's windows, in the merged order


def test_the_plot_draws_the_failures_where_they_happened(tmp_path: Path) -> None:
    main_file, main_rows, failures = _storm_of_failed_attempts(tmp_path)
    run = BudgetRun(FailureBudget(max_masked=0.2, track_blocks=True), FactSpec())
    check.check_paths([main_file], options=CheckOptions(facts=run.spec), budget=run)
    windows = run.budget.blocks()[None]
    assert sum(size for size, _, _ in windows) == len(main_rows) + len(failures)
    failed_by_window = [bad for _, bad, _ in windows]
    # No failed rollout before the storm's tasks; the storm's windows about a third failed, none above 60%.
    first_storm_window = STORM_TASKS.start * REPEATS // 64
    assert sum(failed_by_window[:first_storm_window]) == 0
    assert all(bad < 0.6 * 64 for bad in failed_by_window)
    assert sum(1 for bad in failed_by_window if bad > 10) > 20


def test_the_plot_file_of_the_storm(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("matplotlib")
    from matplotlib import image

    main_file, _, _ = _storm_of_failed_attempts(tmp_path)
    picture = tmp_path / "storm.png"
    main(["check", str(main_file), "--max-masked", "0.2", "--plot", str(picture)])
    capsys.readouterr()
    pixels = image.imread(str(picture))[..., :3]
    blue = (
        (abs(pixels[..., 0] - 0.12) < 0.05) & (abs(pixels[..., 1] - 0.47) < 0.05) & (abs(pixels[..., 2] - 0.71) < 0.05)
    )
    columns = blue.any(axis=0).nonzero()[0]
    # The failures' band spans most of the plot's width (the storm's tasks), not one spike at its right end.
    assert columns.max() - columns.min() > 0.5 * pixels.shape[1]


# -- --follow: by arrival, then by identity within what arrived together ----------------------------------------
def test_follow_merges_what_it_reads_together_by_identity(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from test_budget_follow import Follower

    main_file, _, failures = _storm_of_failed_attempts(tmp_path)  # both written before the follow starts
    main(["check", str(main_file), "--max-masked", "0.2", "--warn-masked", "0.1", "--format", "json"])
    checked = json.loads(capsys.readouterr().out)["budget"]["first_warning"]["rollout"]
    follower = Follower(str(main_file), "--max-masked", "0.2", "--warn-masked", "0.1", "--fail-fast")
    try:
        _, warning = follower.wait_for("warning [budget-masked-rate]")
        _, breach = follower.wait_for("breach [budget-masked-rate]")
        assert follower.process.wait(timeout=20) == 3
    finally:
        follower.stop()
    for line in (warning, breach):
        where, number = line.split(":")[:2]
        assert where.endswith("run_failures.jsonl"), line
        assert STORM_TASKS.start <= failures[int(number) - 1]["_ng_task_index"] < STORM_TASKS.start + 20, line
    assert f"(rollout {checked})" in warning  # as check found it: the same merge


def test_many_runs_hold_one_failures_file_open_at_a_time(tmp_path: Path) -> None:
    """A directory of 300 runs, each with its failures file, checked with 64 file descriptors: each failures
    file is opened when the merge reaches it and closed at its end (all opened up front: EMFILE)."""
    import resource
    import subprocess
    import sys

    for run in range(300):
        _write(tmp_path / f"run{run:03}.jsonl", [_row(task, reward=1.0) for task in range(4)])
        _write(tmp_path / f"run{run:03}_failures.jsonl", [_row(1, _ng_failure_class="agent_run_error")])

    def few_descriptors() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (64, 64))

    command = ["check", str(tmp_path), "--max-consecutive-masked", "1", "--format", "json"]
    done = subprocess.run(
        [sys.executable, "-m", "verify_contract", *command],
        capture_output=True,
        text=True,
        timeout=300,
        preexec_fn=few_descriptors,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    budget = json.loads(done.stdout)["budget"]
    assert (budget["rollouts"], budget["failed"], len(budget["failures_files"])) == (1500, 300, 300)
    # Each failures row went before its run's (1, 0): between rollouts 1 and 2 of each run of 5.
    assert budget["longest_masked_run"] == 1 and done.stderr == ""


def test_only_a_file_merged_by_identity_is_parsed_for_its_groups(monkeypatch: pytest.MonkeyPatch) -> None:
    """With --group-by, a main file whose failures file is merged into it by identity is read with every line's
    identity and group (parsed, so the merge can cut between any two lines); every other grouped file takes
    the compiled pre-check's groups (no line parsed for them: benchmarks/budget.py's --group-by rows)."""
    from verify_contract.check import _budget as budget_facts
    from verify_contract.check import _fastpath as fastpath
    from verify_contract.check._lines import check_chunk

    if fastpath._native is None:
        pytest.skip("the compiled pre-check is not built")
    chunk = b"".join(json.dumps(_row(task, reward=1.0, env="ab"[task % 2])).encode() + b"\n" for task in range(6))
    spec = FactSpec(FailureBudget(group_by=["env"]).group_paths).ordering(frozenset(["merged.jsonl"]))
    options = CheckOptions(facts=spec)
    (merged,) = check_chunk(chunk, 1, "merged.jsonl", options).facts

    def no_parse(line: object) -> None:
        raise AssertionError(f"a grouped line was parsed: {line!r}")

    monkeypatch.setattr(budget_facts, "_loads", no_parse)
    (alone,) = check_chunk(chunk, 1, "alone.jsonl", options).facts
    assert merged.groups is None and merged.bad is None
    assert [merged.details[index][1:] for index in range(6)] == [(("ab"[task % 2],), (task, 0)) for task in range(6)]
    assert alone.details == {} and alone.identities is None and alone.groups is not None
    ((ids, combos, _),) = alone.groups
    assert [combos[at] for at in memoryview(ids).cast("I")[:6]] == [("a",), ("b",)] * 3
