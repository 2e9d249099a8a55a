"""README's GRPO storm table is what benchmarks/grpo_storm.py prints (real verl 0.9.1; seeded, so exact)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "benchmarks"))

import grpo_storm  # noqa: E402


def test_the_readme_table_is_the_benchmarks_output() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    shown = re.search(r"<!-- grpo-storm-table -->\n(.*?)\n<!-- /grpo-storm-table -->", text, re.DOTALL)
    assert shown is not None
    steps = grpo_storm.run()
    assert shown.group(1) == grpo_storm.table(steps)
    # The incident's shape, and what the adapter changes: no failure is trained on or gets an advantage.
    assert sum(step["failed"] for step in steps) == 1172 and sum(step["samples"] for step in steps) == 1280
    assert all(step["contract_failed_share"] == 0 and step["contract_failures_pushing"] == 0 for step in steps)
    assert sum(step["today_failures_pushing"] for step in steps) > 0
