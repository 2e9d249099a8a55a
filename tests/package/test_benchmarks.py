"""The benchmark harness runs end to end at a tiny scale, and its rows are well formed (no timing asserted)."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
CORPORA = {
    "small lines",
    "large lines",
    "small lines, distinct defects 5%",
    "small lines, distinct defects 20%",
    "large lines, distinct defects 5%",
    "large lines, distinct defects 20%",
}


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    workdir = tmp_path_factory.mktemp("bench")
    out = workdir / "results.json"
    command = [sys.executable, str(ROOT / "benchmarks" / "bench.py"), "--scale", "0.002", "--reps", "1"]
    command += ["--startup-reps", "1", "--workdir", str(workdir), "--json", str(out)]
    run = subprocess.run(command, capture_output=True, text=True, check=False, timeout=600)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert "### targets" in run.stdout
    parsed: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
    parsed["workdir"] = str(workdir)
    return parsed


def test_every_corpus_has_whole_process_and_in_process_rows(results: dict[str, Any]) -> None:
    rows = results["rows"]
    assert {row["corpus"] for row in rows} == CORPORA
    for corpus in CORPORA:
        for mode in ("process", "in process"):
            names = [row["name"] for row in rows if row["corpus"] == corpus and row["mode"] == mode]
            assert names[0].startswith("orjson.loads loop"), (corpus, mode, names)  # the baseline comes first
            assert any("check" in name for name in names[1:]), (corpus, mode, names)
    jobs = [row for row in rows if "--jobs 2" in row["name"]]
    assert [row["corpus"] for row in jobs] == ["large lines"]
    assert jobs[0]["baseline"].startswith("verify-contract check")  # against --jobs 1, not against orjson
    budget = [row for row in rows if "failure budget" in row["name"]]
    # without groups and by group, on each main corpus
    assert [row["corpus"] for row in budget] == ["small lines", "small lines", "large lines", "large lines"]
    assert ["--group-by" in row["name"] for row in budget] == [False, True, False, True]
    assert all(row["baseline"] == "verify-contract check --format json (1 core)" for row in budget)


def test_rows_are_well_formed(results: dict[str, Any]) -> None:
    for row in results["rows"]:
        assert row["seconds"] > 0 and row["lines"] > 0 and row["megabytes"] > 0, row
        assert math.isfinite(row["ratio"]) and row["ratio"] > 0, row
        assert math.isfinite(row["cpu_ratio"]) and row["cpu_ratio"] > 0 and row["cpu_seconds"] >= 0, row
        assert (row["baseline"] == "") == row["name"].startswith("orjson.loads loop"), row


def test_check_rows_count_what_the_corpus_labels_say(results: dict[str, Any]) -> None:
    checks = [row for row in results["rows"] if row["counts_ok"] is not None]
    # whole process and in process for each, --jobs 2, and the failure budget (without and by group) on the two
    # main corpora
    assert len(checks) == 2 * len(CORPORA) + 1 + 4
    assert all(row["counts_ok"] for row in checks), [row for row in checks if not row["counts_ok"]]
    assert all(row["rejected"] > 0 for row in checks)


def test_startup_memory_and_targets_are_reported(results: dict[str, Any]) -> None:
    startup = {entry["name"]: entry for entry in results["startup"]}
    check = "verify-contract check ONE_CLEAN_LINE.jsonl"
    uncompiled = check + ", the project's modules compiled on every start (no bytecode cache for them)"
    assert set(startup) == {"python -c pass", 'python -c "import orjson"', check, uncompiled}
    assert all(entry["exit_code"] == 0 and entry["median_ms"] > 0 for entry in startup.values())  # the line is clean
    assert results["phases"][-1]["name"].startswith("check the one-line file (exit 0)")
    assert results["memory"]["exit_code"] == 1 and results["memory"]["peak_rss_mb"] > 0  # the file has bad lines
    targets = results["targets"]
    # 2x on both shapes, 1x on the 4 distinct-defect corpora twice, jobs, the budget (without and by group) on
    # both shapes, start-up, memory
    assert len(targets) == 2 + 2 * 4 + 1 + 4 + 1 + 1
    assert all(isinstance(target["met"], bool) and math.isfinite(target["measured"]) for target in targets)
    machine = results["machine"]
    assert machine["cores"] >= 1 and machine["cpu"] and len(machine["load_average_end"]) == 3


def test_the_uncompiled_start_up_reads_a_cache_without_the_project(results: dict[str, Any]) -> None:
    # That row's children look for bytecode in a copy of the cache with the project's modules left out:
    # those are compiled on every start, the standard library's are read, whatever __pycache__ folders an
    # editable install keeps beside the sources.
    import verify_contract

    package = Path(verify_contract.__file__).resolve().parent
    cache, copy = Path(results["workdir"]) / "pycache", Path(results["workdir"]) / "pycache-without-project"
    inside = package.relative_to(package.anchor)
    assert any((cache / inside).glob("*.pyc")) and not (copy / inside).exists()
    assert any(copy.rglob("json/*.pyc"))  # the standard library's stay


def test_the_budget_benchmark_runs_end_to_end(tmp_path: Path) -> None:
    """benchmarks/budget.py at a tiny scale: every variant row and the observe() row, with finite ratios."""
    out = tmp_path / "budget.json"
    command = [sys.executable, str(ROOT / "benchmarks" / "budget.py"), "--scale", "0.0005", "--reps", "1"]
    command += ["--workdir", str(tmp_path), "--json", str(out)]
    run = subprocess.run(command, capture_output=True, text=True, check=False, timeout=300)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    rows = json.loads(out.read_text())
    assert [(row["corpus"], row["variant"]) for row in rows] == [
        (corpus, variant)
        for corpus, groups in (("small lines", "env,judge.verdict"), ("large lines", "agent_ref.name"))
        for variant in (
            "plain",
            "budget",
            f"budget + --group-by {groups}",
            "budget + --group-by failure_kind",
            "budget + failures file merged by identity",
        )
    ] + [("small lines", "observe per document (us)")]
    assert all(math.isfinite(row["ratio"]) and row["ratio"] > 0 for row in rows)


@pytest.mark.slow
def test_the_follow_benchmark_runs_end_to_end(tmp_path: Path) -> None:
    """benchmarks/follow.py for one second at a low rate: a real writer process and a real follower; every
    marker line's finding is seen (the script exits non-zero otherwise), and the rows are finite."""
    out = tmp_path / "follow.json"
    command = [sys.executable, str(ROOT / "benchmarks" / "follow.py"), "--rates", "2000", "--seconds", "1"]
    run = subprocess.run([*command, "--json", str(out)], capture_output=True, text=True, check=False, timeout=300)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    (row,) = json.loads(out.read_text())
    assert row["rate"] == 2000 and 1000 <= row["lines"] <= 2100
    assert len(row["behind_at_quarters"]) == 3 and row["behind_at_end"] >= 0
    assert 0 < row["lag_median_ms"] <= row["lag_p99_ms"] and row["cpu_ratio"] > 0


@pytest.mark.slow
def test_the_probe_concurrency_benchmark_counts_what_the_server_saw(tmp_path: Path) -> None:
    """benchmarks/probe_concurrency.py at a small size against the real paced server: every client's requests
    all reached it (the script exits non-zero otherwise), over no more connections than requests."""
    out = tmp_path / "probe.json"
    command = [sys.executable, str(ROOT / "benchmarks" / "probe_concurrency.py"), "--requests", "40"]
    command += ["--concurrency", "10", "--pace", "0.01", "--json", str(out)]
    run = subprocess.run(command, capture_output=True, text=True, check=False, timeout=300)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    rows = json.loads(out.read_text())
    assert rows[0]["client"].startswith("verify-contract probe") and len(rows) >= 2
    assert all(row["requests"] == 40 and 1 <= row["connections"] <= 40 and row["x_ideal"] > 0 for row in rows)
