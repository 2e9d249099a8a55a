"""``verify-contract check`` with a failure budget (SPEC 11): the incident's storm caught at its first
window, failures files, the retry list, --jobs, bad input, metrics checked by promtool, the plot."""

from __future__ import annotations

import gc
import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from languages import REQUIRE_ALL
from storm_example import STORM

from verify_contract.budget import BudgetError, FailureBudget
from verify_contract.check import _run as check
from verify_contract.check._budget import BudgetRun, ChunkFacts, FactSpec
from verify_contract.check._lines import CheckOptions
from verify_contract.cli import main

ROOT = Path(__file__).resolve().parents[2]


STORM_FLAGS = ["--max-masked", "0.2", "--warn-masked", "0.1", "--group-by", "_ng_environment_server"]


@pytest.fixture
def storm(tmp_path: Path) -> Path:
    main_file, _ = STORM.write(tmp_path)
    return main_file


def run_json(capsys: pytest.CaptureFixture[str], *arguments: str) -> tuple[int, dict[str, Any]]:
    code = main(["check", *arguments, "--format", "json"])
    return code, json.loads(capsys.readouterr().out)


def test_the_storm_is_caught_at_its_first_window_with_the_environment_and_the_kind(
    storm: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    main_rows, failures, killed = STORM.rows()
    code = main(["check", str(storm), *STORM_FLAGS, "--expected", f"{STORM.TASKS}x{STORM.REPEATS}"])
    text = capsys.readouterr().out
    assert code == 3  # budget breached: neither 1 (contract) nor 2 (usage)
    first_masked = next(i for i, row in enumerate(main_rows, 1) if row.get("mask_sample"))
    first_breach = next(line for line in text.splitlines() if " breach [budget-masked-rate]" in line)
    # "rollouts.jsonl:335: breach [...] ..." : within one window of the storm's first masked reply
    line = int(first_breach.split(":")[1])
    assert first_masked < line < first_masked + 64, (first_masked, first_breach)
    assert "_ng_environment_server=browser_env" in text and "session_lost" in text
    assert f"failures file {storm.parent / 'rollouts_failures.jsonl'}: {len(failures)} failed rollouts" in text
    assert f"{killed} missing" in text
    assert "BREACH" in text


def test_the_json_report_has_the_budget_section_and_counts_add_up(
    storm: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    main_rows, failures, killed = STORM.rows()
    code, report = run_json(capsys, str(storm), *STORM_FLAGS, "--expected", f"{STORM.TASKS}x{STORM.REPEATS}")
    budget = report["budget"]
    assert code == 3
    assert report["lines"] == len(main_rows) == report["valid"]  # the failures file is not checked as documents
    assert budget["rollouts"] == len(main_rows) + len(failures) == budget["ok"] + budget["masked"] + budget["failed"]
    assert budget["failed"] == len(failures) and budget["masked"] == report["masked"]
    lost = round((budget["masked"] + budget["failed"] + killed) / 1280, 6)  # past --max-masked: a breach too
    assert budget["expected"] == {"expected": 1280, "present": 1280 - killed, "missing": killed, "breach": lost}
    breach = budget["first_breach"]
    assert breach["rule"] == "budget-masked-rate" and breach["file"].endswith("rollouts.jsonl")
    assert next(iter(breach["kinds"])) == "session_lost"  # the storm's kind dominates its window
    groups = {g["group"]["_ng_environment_server"]: g for g in budget["groups"]}
    assert groups["browser_env"]["masked"] == budget["masked"] and groups["math_env"]["masked"] == 0
    assert sum(g["rollouts"] for g in groups.values()) == budget["rollouts"]
    assert report["rules"]["budget-missing"] == 1


def test_retry_list_names_each_rollout_to_run_again(
    storm: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    main_rows, failures, killed = STORM.rows()
    retry = tmp_path / "retry.jsonl"
    main(["check", str(storm), "--expected", f"{STORM.TASKS}x{STORM.REPEATS}", "--retry-list", str(retry)])
    capsys.readouterr()
    rows = [json.loads(line) for line in retry.read_text().splitlines()]
    by_why: dict[str, set[tuple[int, int]]] = {}
    for row in rows:
        by_why.setdefault(row["why"], set()).add((row["_ng_task_index"], row["_ng_rollout_index"]))
    masked = {(r["_ng_task_index"], r["_ng_rollout_index"]) for r in main_rows if r.get("mask_sample")}
    failed = {(r["_ng_task_index"], r["_ng_rollout_index"]) for r in failures}
    seen = {(r["_ng_task_index"], r["_ng_rollout_index"]) for r in main_rows} | failed
    every = {(t, r) for t in range(STORM.TASKS) for r in range(STORM.REPEATS)}
    assert by_why == {"masked": masked, "failed": failed, "missing": every - seen}
    assert len(rows) == len(masked) + len(failed) + killed


def test_a_failed_attempt_whose_rollout_later_succeeded_is_not_retried(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "out.jsonl").write_text(json.dumps({"reward": 1, "_ng_task_index": 0, "_ng_rollout_index": 0}) + "\n")
    (tmp_path / "out_failures.jsonl").write_text(
        json.dumps({"_ng_failure_class": "agent_run_error", "_ng_task_index": 0, "_ng_rollout_index": 0}) + "\n"
    )
    retry = tmp_path / "retry.jsonl"
    main(["check", str(tmp_path / "out.jsonl"), "--retry-list", str(retry), "--expected", "1x1"])
    capsys.readouterr()
    assert retry.read_text() == ""


def test_jobs_and_chunking_give_the_same_budget(
    storm: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    baseline = run_json(capsys, str(storm), *STORM_FLAGS, "--expected", "1280")
    monkeypatch.setattr(check, "RANGE_BYTES", 30001)  # many byte ranges, so --jobs shares the file
    monkeypatch.setattr(check, "SHARE_MIN_BYTES", 1000)
    for jobs in ("1", "2", "3"):
        assert run_json(capsys, str(storm), *STORM_FLAGS, "--expected", "1280", "--jobs", jobs) == baseline


def test_budget_from_chunks_equals_the_library_fed_line_by_line(storm: Path) -> None:
    """The CLI's bulk path (usable lines skipped in bulk) and observe() on every document agree."""
    library = FailureBudget(max_masked=0.2, warn_masked=0.1, window=50, min_samples=30, max_consecutive_masked=5)
    for line_number, line in enumerate(storm.read_text().splitlines(), 1):
        library.observe(json.loads(line), (str(storm), line_number))
    cli = BudgetRun(
        FailureBudget(max_masked=0.2, warn_masked=0.1, window=50, min_samples=30, max_consecutive_masked=5), FactSpec()
    )
    options = CheckOptions(facts=cli.spec)
    check.check_paths([storm], options=options, budget=cli, failures_files=False)
    assert cli.budget.summary() == library.summary()


def test_a_failures_file_in_a_directory_is_not_checked_as_verify_responses(
    storm: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, report = run_json(capsys, str(storm.parent))
    assert code == 0 and report["invalid"] == 0  # without a budget flag, the rows are still counted as failed
    assert report["budget"]["failed"] == len(STORM.rows()[1])
    code, report = run_json(capsys, str(storm.parent), "--no-failures-file")
    assert code == 1 and report["rules"]["reward-required"] == len(STORM.rows()[1])


def test_an_unreadable_failures_line_is_one_finding_and_the_lines_add_up(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "out.jsonl").write_text('{"reward": 1}\n')
    (tmp_path / "out_failures.jsonl").write_text(
        '{"_ng_failure_class": "agent_run_error"}\n{"_ng_failure_cl\n\n[1, 2]\n{"_ng_failure_class": "x"}\n'
    )
    code, report = run_json(capsys, str(tmp_path / "out.jsonl"), "--max-masked", "1")
    unreadable = [f for f in report["findings"] if f["rule"] == "budget-sidecar-unreadable"]
    assert [(f["path"].endswith("out_failures.jsonl"), f["line"]) for f in unreadable] == [(True, 2), (True, 4)]
    counts = report["budget"]["failures_files"][str(tmp_path / "out_failures.jsonl")]
    assert counts == {"rows": 2, "blank": 1, "unreadable": 2, "classes": {"agent_run_error": 1, "x": 1}}
    assert report["budget"]["failed"] == 2 and report["budget"]["rollouts"] == 3
    assert code == 0  # warnings only


@pytest.mark.parametrize(
    ("flags", "says"),
    [
        (["--max-masked", "1.5"], "outside [0, 1]"),
        (["--warn-masked", "nan"], "outside [0, 1]"),
        (["--max-masked", "abc"], "is not a rate"),
        (["--window", "0"], "below 1"),
        (["--min-samples", "65"], "min_samples must be between 1 and the window"),
        (["--expected", "12y"], "TASKSxREPEATS"),
        (["--group-by", "a..b"], "not a dotted member path"),
        (["--fail-fast"], "--fail-fast stops a --follow run"),
    ],
)
def test_bad_budget_settings_are_one_line_and_exit_2(flags: list[str], says: str, storm: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "verify_contract", "check", str(storm), *flags], capture_output=True, text=True
    )
    assert done.returncode == 2, done
    assert "Traceback" not in done.stderr
    reason = done.stderr.strip().splitlines()[-1]  # argparse prints its usage first, then the reason: one line
    assert reason.startswith("verify-contract check: ") and says in reason, done.stderr


def test_budget_settings_refused_by_the_library() -> None:
    for settings in ({"max_masked": -0.1}, {"window": 0}, {"window": 4, "min_samples": 5}, {"expected": (0, 3)}):
        with pytest.raises(BudgetError):
            FailureBudget(**settings)  # type: ignore[arg-type]


def _promtool() -> str | None:
    found = shutil.which("promtool")
    if found is None and REQUIRE_ALL:
        pytest.fail("promtool is missing: .ci/run installs Debian's prometheus package")
    return found


def test_metrics_file_passes_promtool_and_keeps_labels_low_cardinality(
    storm: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    metrics = tmp_path / "check.prom"
    main(["check", str(storm), *STORM_FLAGS, "--metrics-file", str(metrics)])
    capsys.readouterr()
    text = metrics.read_text()
    assert (
        'verify_contract_masked_rollouts_total{failure_kind="session_lost",group__ng_environment_server="browser_env"}'
        in text
    )
    assert "verify_contract_budget_breached 1.0" in text
    assert "failure_reason" not in text and "target closed" not in text and "_ng_task_index" not in text
    promtool = _promtool()
    if promtool is None:
        pytest.skip("promtool not installed (apt-get install prometheus)")
    done = subprocess.run([promtool, "check", "metrics"], input=text, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def test_unregistered_kinds_collapse_to_one_label(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows = [{"reward": 0, "mask_sample": True, "failure_kind": f"made_up_{i}"} for i in range(30)]
    rows.append({"reward": 0, "mask_sample": True, "failure_kind": "browser:tab_crashed"})
    (tmp_path / "out.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    metrics = tmp_path / "m.prom"
    main(["check", str(tmp_path / "out.jsonl"), "--metrics-file", str(metrics)])
    capsys.readouterr()
    kinds = [
        line for line in metrics.read_text().splitlines() if line.startswith("verify_contract_masked_rollouts_total")
    ]
    assert kinds == [
        'verify_contract_masked_rollouts_total{failure_kind="browser:tab_crashed"} 1.0',
        'verify_contract_masked_rollouts_total{failure_kind="unregistered"} 30.0',
    ]


def test_the_example_alerting_rules_fire_on_a_storm_and_not_on_a_quiet_run() -> None:
    promtool = _promtool()
    if promtool is None:
        pytest.skip("promtool not installed (apt-get install prometheus)")
    rules = ROOT / "examples" / "alerts"
    done = subprocess.run(
        [promtool, "test", "rules", "verify-contract.test.yml"], cwd=rules, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout + done.stderr
    done = subprocess.run([promtool, "check", "rules", "verify-contract.rules.yml"], cwd=rules, capture_output=True)
    assert done.returncode == 0, done


def test_plot_is_written_and_shows_the_storm(storm: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("matplotlib")
    from matplotlib import image

    picture = tmp_path / "storm.png"
    main(["check", str(storm), *STORM_FLAGS, "--plot", str(picture)])
    capsys.readouterr()
    assert picture.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    pixels = image.imread(str(picture))
    assert pixels.shape[0] > 400 and pixels.shape[1] > 600
    assert pixels[..., :3].std() > 0.05  # not blank
    # The storm's colour (the first kind band, tab10 blue) covers a visible share of the picture.
    blue = (
        (abs(pixels[..., 0] - 0.12) < 0.05) & (abs(pixels[..., 1] - 0.47) < 0.05) & (abs(pixels[..., 2] - 0.71) < 0.05)
    )
    assert blue.mean() > 0.02


# Lines that break the contract, as the random streams below draw them: (text, the document a trainer
# would hand observe(), None for a JSON-text defect), each taking its failure kind from a different place.
BROKEN_LINES = [
    ('{"reward": "0.5"}', {"reward": "0.5"}),
    # the kind of a contract-invalid line the pre-check read whole comes from the pre-check
    ('{"reward": "0.5", "mask_sample": true, "failure_kind": "judge_failed"}', None),
    # a JSON-text defect: no document, so no kind
    ('{"reward": 0.5, "mask_sample": tru', None),
    # no failure_kind: the kind is the failures-file member's (the line is parsed)
    ('{"reward": "0.5", "_ng_failure_class": "agent_run_error"}', None),
    # an escape in the kind: the line is parsed
    ('{"reward": "0.5", "failure_kind": "judge\\u005ffailed"}', None),
    # JSON-text defects the budget's parse (orjson) refuses too: no document, every group member absent
    ('{"reward": NaN, "env": "math"}', None),
    ('{"reward": 1.0, "env": "\\ud800"}', None),
    # a repeated member: a text defect, but a parse keeps the last value (its group)
    ('{"reward": "0.5", "env": "a", "env": "b"}', None),
    # a repeated name on no group path (the last value breaks the contract): the compiled scan reads on past
    # it for the line's groups, in arrays and nested objects, several names, a group member before and after
    ('{"reward": 0.5, "env": "a", "reward": "1.0"}', None),
    ('{"reward": "0.5", "agent_ref": {"name": "n", "type": "agent", "type": "x"}, "a": {"b": {"c": 7}}}', None),
    ('{"reward": 0.5, "env": "\\"reward\\": 2", "meta": {"reward": 1}, "reward": [{"reward": 3}]}', None),
    ('{"reward": 0.5, "reward#0": 1, "reward": "2", "env": "c"}', None),
    ('{"a b": 0.5, "env": "d", "a b": 1}', None),
    ('{"x": 1, "x": 2, "y": [{"z": 1, "z": 2}], "y": 3, "env": "f", "agent_ref": {"name": "m"}}', None),
    # ... and where it cannot (the line is parsed): a path's name repeated, before or after another, or
    # above a path's member; a NaN token, an escaped name or a wide integer after the repeated name
    ('{"reward": 0.5, "reward": "1", "env": "a", "env": "b"}', None),
    ('{"env": "a", "env": "b", "reward": 1, "reward": "2"}', None),
    ('{"agent_ref": {"name": "n"}, "reward": "1", "agent_ref": {"type": "t"}}', None),
    ('{"a": {"b": {"c": 1}}, "a": 2, "env": "g"}', None),
    ('{"meta": {"env": 1, "env": 2}, "env": "h"}', None),
    ('{"x\\"reward": 0, "reward": 1, "reward": "2", "env": "e"}', None),
    ('{"reward": 1, "reward": 2, "env": NaN}', None),
    ('{"reward": 1, "reward": "2", "e\\u006ev": "i"}', None),
    ('{"reward": 1, "reward": "2", "env": 123456789012345678901, "x": {"env": 1}}', None),
]


# Group paths and the values the random streams give their members: nested and top-level paths, absent ones,
# values of every JSON type (the label of a number is Python's repr of orjson's value: -0, 1.0, 1e2, a wide
# integer), escapes in values, and members that look like a path's without being it.
GROUP_PATHS = [("env",), ("agent_ref.name",), ("env", "agent_ref.name"), ("failure_kind",), ("a.b.c",)]
GROUP_VALUES: list[Any] = [
    "math",
    "math",
    "browser",
    'qu"ote',
    "é",
    "tab\t",
    "x" * 130,
    "x" * 64 + "y" * 2 + "x" * 64,  # the same length, first and last bytes: the compiled scan's middle compare
    "math_with_judgf",  # 17 bytes of text, as "math_with_judge" but the last
    "",
    0,
    1,
    101,  # three bytes of text: every one read
    111,
    -0.0,
    1.0,
    1e2,
    2.5,
    12345678901234567890123,
    True,
    False,
    None,
    {"k": 1},
    [1, 2],
]


def _grouped(document: dict[str, Any], chance: Any) -> None:
    """Adds group members (or not) to a document, with decoys at other depths."""
    if chance.random() < 0.8:
        document["env"] = chance.choice(GROUP_VALUES)
    ref = chance.random()
    if ref < 0.6:
        document["agent_ref"] = {"type": "agent", "name": chance.choice(GROUP_VALUES)}
    elif ref < 0.7:
        document["agent_ref"] = chance.choice(["agent", None, [{"name": "in_array"}], {"type": "no name"}])
    if chance.random() < 0.2:
        document["meta"] = {"env": "decoy", "name": "decoy", "agent_ref": {"name": "decoy"}}
    if chance.random() < 0.1:
        document["a"] = {"b": {"c": chance.choice(GROUP_VALUES)}}


def _spelled(document: dict[str, Any], chance: Any) -> str:
    """The document's JSON text: escaped non-ASCII or raw, and now and then a member name spelled with an
    escape (the same name to a parser; the pre-check leaves such lines to a parse)."""
    text = json.dumps(document, ensure_ascii=chance.random() < 0.5)
    if chance.random() < 0.1:
        text = text.replace('"env"', '"\\u0065nv"', 1)
    if chance.random() < 0.05:
        text = text.replace('"name"', '"n\\u0061me"', 1)
    return text


@pytest.mark.parametrize("compiled", [True, False], ids=["compiled", "python"])
@pytest.mark.parametrize("seed", range(60))
def test_bulk_feeding_equals_rollout_by_rollout(
    seed: int, compiled: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """check's per-chunk pass (record_run: usable rollouts counted, not visited; the compiled pre-check's
    failure kinds and windows, or the Python ones without it) against observe() on every document, on random
    streams (blank lines, masks, kinds, invalid lines of every kind source, failures rows), settings and
    chunkings: the same summary, events, and where they happened."""
    import contextlib
    import copy
    import random

    import orjson

    from verify_contract import _window as window_pass
    from verify_contract import budget as budget_module
    from verify_contract.check import _fastpath as fastpath
    from verify_contract.check import _inputs as inputs

    if not compiled:
        monkeypatch.setattr(fastpath, "_native", None)
        monkeypatch.setattr(window_pass, "_native", None)
    elif fastpath._native is None:
        pytest.skip("the compiled pre-check is not built")

    chance = random.Random(seed)
    window = chance.choice([1, 2, 3, 5, 8, 13])
    settings: dict[str, Any] = {
        "max_masked": chance.choice([None, 0.0, 0.25, 0.5, 0.9]),
        "warn_masked": chance.choice([None, 0.1, 0.3]),
        "window": window,
        "min_samples": chance.randint(1, window),
        "max_consecutive_masked": chance.choice([None, 0, 1, 3]),
        "track_blocks": True,  # the plot's per-window counts, compared below
    }
    if seed % 3:  # two streams in three grouped (the compiled scan reads the groups), one not
        settings["group_by"] = list(chance.choice(GROUP_PATHS))
        # a cap low enough that groups past it are folded into (other), in the order they first appear
        monkeypatch.setattr(budget_module, "MAX_DISTINCT", chance.choice([1000, 2, 5]))
    grouped = bool(settings.get("group_by"))
    storm_share = chance.random()
    lines, library, events = [], FailureBudget(**settings), []
    for number in range(1, chance.randint(1, 400)):
        draw = chance.random()
        if draw < 0.05:
            lines.append("")
            continue
        if draw < 0.08:
            text, parsed = chance.choice(BROKEN_LINES)  # breaks the contract: failed
            broken = copy.deepcopy(parsed)
            if parsed is None:  # as check reads the line (orjson), which refuses NaN and lone surrogates
                with contextlib.suppress(orjson.JSONDecodeError):
                    broken = orjson.loads(text)
            if grouped and broken is not None and chance.random() < 0.5:
                _grouped(broken, chance)
                text = _spelled(broken, chance)
                broken = orjson.loads(text)  # as check reads the line: an integer past 64 bits is a float
            lines.append(text)
            events += library.observe(broken, ("x", number), valid=False)
            continue
        document: dict[str, Any] = {"reward": chance.random()}
        if grouped:
            _grouped(document, chance)
        if chance.random() < storm_share:
            document["mask_sample"] = True
            kind = chance.choice([None, "session_lost", "judge_failed", "browser:tab_crashed"])
            if kind:
                document["failure_kind"] = kind
            elif chance.random() < 0.3:
                document["_ng_failure_class"] = "agent_request_failed"
        if grouped:
            lines.append(_spelled(document, chance))
            document = orjson.loads(lines[-1])  # as check reads the line: an integer past 64 bits is a float
        else:
            lines.append(json.dumps(document))
        events += library.observe(document, ("x", number))
    path = tmp_path / "x"
    path.write_text("".join(line + "\n" for line in lines))
    failures = [{"_ng_failure_class": chance.choice(["agent_run_error", "x"])} for _ in range(chance.randint(0, 5))]
    for row in failures:
        if grouped and chance.random() < 0.5:
            _grouped(row, chance)
    for number, row in enumerate(failures, 1):
        library.observe_failure(row, ("x_failures", number))
    monkeypatch.setattr(inputs, "CHUNK_BYTES", chance.choice([64, 300, 1 << 20]))
    cli = BudgetRun(FailureBudget(**settings), FactSpec(library.group_paths))
    options = CheckOptions(facts=cli.spec, fast=compiled)  # fast=False: no field table, every line read
    check.check_paths([path], options=options, budget=cli, failures_files=False)
    # every event of the main file, in the order observe() gave them, at the same rollout and line
    assert [(e.as_dict() | {"file": "x"}) for e in cli.events] == [e.as_dict() for e in events]
    from verify_contract.check._budget import FailuresRows, numbered_lines

    lines_of_failures = numbered_lines(json.dumps(row).encode() for row in failures)
    rows = FailuresRows("x_failures", lines_of_failures, cli.spec.group_paths, cli.failures_file_read("x_failures"))
    cli.merge_failures([], {}, [rows])  # no identities: after the main file (SPEC 11.1)
    cli.finish_failures()
    mine, theirs = cli.budget.summary(), library.summary()
    for summary in (mine, theirs):  # the file is named x by the library, by its path by check
        for event in (summary["first_breach"], summary["first_warning"]):
            if event is not None and event["file"] != "x_failures":
                event["file"] = "x"
        run_at = summary["longest_masked_run_at"]
        if run_at and run_at.get("file") not in (None, "x_failures"):
            run_at["file"] = "x"
    assert mine == theirs
    assert cli.budget.blocks() == library.blocks()


def test_a_per_rollout_group_path_is_capped_counted_and_reported(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A group path that is a per-rollout id over 120,000 lines: the first MAX_DISTINCT groups are kept apart,
    every later one counted as (other) (so the run's memory and the metrics' series stay bounded), the counts
    add up, the JSON and text reports say so, and promtool accepts the metrics with at most MAX_DISTINCT + 1
    values of the group label."""
    from verify_contract.budget import MAX_DISTINCT, OTHER

    lines = 120_000
    path = tmp_path / "ids.jsonl"
    path.write_text(
        "".join(
            json.dumps({"reward": 0.5, "mask_sample": i % 10 == 0, "rollout_id": f"r{i}", "agent_ref": {"name": i}})
            + "\n"
            for i in range(lines)
        )
    )
    flags = ["--max-masked", "0.5", "--window", "4", "--group-by", "rollout_id", "--group-by", "agent_ref.name"]
    metrics = tmp_path / "ids.prom"
    code, report = run_json(capsys, str(path), *flags, "--metrics-file", str(metrics))
    budget = report["budget"]
    assert (code, budget["rollouts"], budget["masked"]) == (0, lines, lines // 10)
    assert budget["group_cap"] == {"cap": MAX_DISTINCT, "groups": MAX_DISTINCT + 1, "other_rollouts": lines - 1000}
    groups = {tuple(g["group"].values()): g for g in budget["groups"]}
    assert len(groups) == MAX_DISTINCT + 1 and sum(g["rollouts"] for g in groups.values()) == lines
    other = groups[(OTHER, OTHER)]
    assert (other["rollouts"], other["masked"]) == (lines - 1000, (lines - 1000) // 10)
    assert groups[("r999", "999")]["rollouts"] == 1 and ("r1000", "1000") not in groups
    main(["check", str(path), *flags])
    assert f"{lines - 1000:,} rollouts of the others counted together as (other)" in capsys.readouterr().out
    text = metrics.read_text()
    values = {
        line.split('group_rollout_id="', 1)[1].split('"', 1)[0]
        for line in text.splitlines()
        if "group_rollout_id=" in line
    }
    assert len(values) == MAX_DISTINCT + 1 and OTHER in values
    promtool = _promtool()
    if promtool is None:
        pytest.skip("promtool not installed (apt-get install prometheus)")
    done = subprocess.run([promtool, "check", "metrics"], input=text, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_group_value_is_labelled_from_its_text_as_from_the_parsed_value() -> None:
    """raw_label (what the compiled scan calls once per distinct value) against the label of orjson's value,
    the budget's parse: strings with and without escapes, integers (-0 too), fractions, literals, containers."""
    import orjson

    from verify_contract.budget import group_label
    from verify_contract.check._budget import raw_label

    raws = [b'"math"', b'""', b'"\\u00e9"', b'"\xc3\xa9"', b'"a\\"b"', b'"' + b"x" * 130 + b'"', b"0", b"-0", b"7"]
    raws += [b"-123456789012345678", b"1.0", b"-0.0", b"1e2", b"2.5E-3", b"0.1", b"true", b"false", b"null"]
    raws += [b"{}", b"[]"]
    for raw in raws:
        assert raw_label(raw) == group_label(orjson.loads(raw)), raw


def test_the_budget_parse_is_orjson_s_without_importing_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """_loads (json with orjson's number and constant rules, orjson where the two could disagree) against
    orjson itself on lines where json and orjson differ: NaN and Infinity, integers past 64 bits, floats that
    overflow, unpaired and paired surrogates, repeated members, bad UTF-8, a BOM, control characters."""
    import orjson

    from verify_contract.check._budget import _loads

    lines = [
        b'{"a": 1, "a": 2}',
        b'{"a": NaN}',
        b'{"a": -Infinity}',
        b'{"a": 18446744073709551615, "b": 18446744073709551616, "c": -9223372036854775809}',
        b'{"a": 123456789012345678901234567890}',
        b'{"a": ' + b"9" * 400 + b"}",
        b'{"a": 1.8e308}',
        b'{"a": 1e-400, "b": -0, "c": -0.0, "d": 4.9e-324}',
        b'{"a": "\\ud800"}',
        b'{"a": "\\uDC00x"}',
        b'{"a": "\\ud83d\\ude00"}',
        b'{"a": "\xff"}',
        b'\xef\xbb\xbf{"a": 1}',
        b'{"a": "x\x01"}',
        b'{"a": "\\u0065"}\r\n',
        b'{"a": [' * 300 + b"]" * 300 + b"}",
        b"[1, 2]",
        b'"x"',
        b'{"a": 1',
        b'{"a": 1} {"b": 2}',
        b"",
    ]
    from verify_contract.check import _budget as check_budget

    for line in lines:
        try:
            expected = orjson.loads(line)
        except orjson.JSONDecodeError:
            expected = None
        monkeypatch.setattr(check_budget, "_parsed_by_json", [0])  # json's turn (a run's first lines)
        assert _loads(line) == expected and repr(_loads(line)) == repr(expected), line


@pytest.mark.parametrize("collecting", [True, False])
def test_a_flush_pauses_the_collector_and_leaves_it_as_it_was_even_when_the_feed_fails(
    collecting: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    run = BudgetRun(FailureBudget(max_masked=0.2), FactSpec())
    run.feed(ChunkFacts("x", 1, b"\x01\x02", {}, bad=([1], b"\x01", ["(none)"])))  # waits for the batch
    during: list[bool] = []

    def failing_feed(facts: ChunkFacts) -> None:
        during.append(gc.isenabled())
        raise RuntimeError("the feed failed")

    monkeypatch.setattr(run, "_feed", failing_feed)
    was = gc.isenabled()
    (gc.enable if collecting else gc.disable)()
    try:
        with pytest.raises(RuntimeError, match="the feed failed"):
            run.flush()
        after = gc.isenabled()
    finally:
        (gc.enable if was else gc.disable)()
    assert during == [False]
    assert after is collecting
