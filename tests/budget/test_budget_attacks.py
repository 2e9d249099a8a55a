"""The failure budget's memory attacks of issue 30 at their full size, the numbers asserted: a flapping stream of
3.6M rollouts, 300,000 failures-file classes, a retry list of a million missing identities, an idle
``--follow --fail-fast --expected 20000x64``, and a long-lived ``FailureBudget``.
Seconds each (marked slow in conftest.py); the same behaviours at a small size: tests/budget/test_budget_bounds.py."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

from test_budget_bounds import FLAPPING_FLAGS, MASKED, USABLE, _peak_rss_kb

from verify_contract._budget_caps import EVENTS_KEPT, MAX_DISTINCT
from verify_contract.budget import FailureBudget


def test_a_flapping_stream_of_3_6_million_rollouts_keeps_its_events_capped(tmp_path: Path) -> None:
    periods = 900_000  # 3.6M rollouts, a breach event every 4 (262 MB of events when all were kept)
    period = "".join(json.dumps(row) + "\n" for row in (USABLE, USABLE, MASKED, MASKED))
    path = tmp_path / "run.jsonl"
    with path.open("w", encoding="utf-8") as stream:
        for _ in range(periods // 10_000):
            stream.write(period * 10_000)
    code, peak, out = _peak_rss_kb(str(path), *FLAPPING_FLAGS, "--format", "json")
    budget = json.loads(out)["budget"]
    assert code == 3 and budget["rollouts"] == 4 * periods and budget["breaches"] == periods
    assert len(budget["events"]) == EVENTS_KEPT
    assert budget["events_not_kept"] == {"budget-masked-rate": {"breach": periods - EVENTS_KEPT}}
    assert peak < 80_000, peak  # kB (30 MB measured)


def test_300000_failures_file_classes_are_capped_in_memory_and_in_the_report(tmp_path: Path) -> None:
    main_file = tmp_path / "run.jsonl"
    main_file.write_text(json.dumps(USABLE) + "\n", encoding="utf-8")
    with (tmp_path / "run_failures.jsonl").open("w", encoding="utf-8") as stream:
        for index in range(300_000):
            stream.write(json.dumps({"_ng_failure_class": f"class_{index}", "_ng_task_index": index}) + "\n")
    code, peak, out = _peak_rss_kb(str(main_file))
    line = next(line for line in out.splitlines() if "failures file" in line)
    assert code == 0 and "300,000 failed rollouts" in line and len(line) < 600, line  # was 31.5 MB on one line
    assert f"(other) {300_000 - MAX_DISTINCT:,}" in line
    assert len(out) < 5_000 and peak < 60_000, (len(out), peak)  # kB (16 MB measured)


def test_a_retry_list_of_a_million_missing_identities_is_streamed(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    path.write_text(json.dumps({**USABLE, "_ng_task_index": 7, "_ng_rollout_index": 3}) + "\n", encoding="utf-8")
    retry = tmp_path / "retry.jsonl"
    code, peak, _ = _peak_rss_kb(str(path), "--expected", "1000x1000", "--retry-list", str(retry))
    assert code == 0 and peak < 60_000, peak  # kB (16 MB measured): the rows are written as they are generated
    with retry.open("rb") as stream:
        first = json.loads(stream.readline())
        count = 1 + sum(1 for _ in stream)
    assert count == 1_000_000 - 1 and first == {"_ng_task_index": 0, "_ng_rollout_index": 0, "why": "missing"}


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime


def test_an_idle_follow_with_a_large_grid_does_not_burn_a_core(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    path.write_text(json.dumps(USABLE) + "\n", encoding="utf-8")
    # --max-masked 1: the share lost is judged at every poll and can never pass the bound, so the run goes on
    command = ["check", str(path), "--follow", "--fail-fast", "--expected", "20000x64", "--max-masked", "1"]
    process = subprocess.Popen(
        [sys.executable, "-m", "verify_contract", *command],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        time.sleep(2.0)  # started and idle: the file does not grow
        assert process.poll() is None
        before, start = _cpu_seconds(process.pid), time.monotonic()
        time.sleep(4.0)
        used, elapsed = _cpu_seconds(process.pid) - before, time.monotonic() - start
    finally:
        process.kill()
        process.wait(timeout=20)
    assert used < 0.1 * elapsed, (used, elapsed)  # was 63% of a core: the grid listed at every poll


def test_a_long_lived_budget_stays_the_same_size() -> None:
    """A trainer loop or the middleware feeds one FailureBudget for the whole run: after a warm-up, 250,000
    more observations (a storm's masks, groups, kinds) leave its memory where it was (the plot's blocks, kept
    by default before, grew ~6 MB a million: 1.5 MB here)."""
    budget = FailureBudget(max_masked=0.2, warn_masked=0.1, group_by=["env"], max_consecutive_masked=5)
    rows = [
        {**USABLE, "env": "a"},
        {**MASKED, "env": "b"},
        {**USABLE, "env": "b"},
        {"reward": 0.0, "mask_sample": True, "failure_kind": "judge_failed", "env": "a"},
    ]
    for index in range(50_000):
        budget.observe(rows[index % 4])
    tracemalloc.start()
    try:
        warm, _ = tracemalloc.get_traced_memory()
        for index in range(250_000):
            budget.observe(rows[index % 4 if index % 7 else 1])
        grown = tracemalloc.get_traced_memory()[0] - warm
    finally:
        tracemalloc.stop()
    assert budget.rollouts == 300_000
    assert grown < 64_000, grown  # bytes
