"""``check --plot`` on the storm example, read from matplotlib's figure objects: every panel on the stream's
rollout axis, each bar the share masked or failed of its scope's rollouts in that block of the stream (counted
here from the rows storm.py writes, not from the budget), the bounds' values in the legend, and the first warning
and breach of each panel marked where the report says they happened."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest
from storm_example import STORM

from verify_contract.budget import FailureBudget
from verify_contract.check import _run as check
from verify_contract.check._budget import BudgetRun, FactSpec
from verify_contract.check._lines import CheckOptions

pytest.importorskip("matplotlib")

from matplotlib import pyplot
from matplotlib.patches import Rectangle

from verify_contract.check._budget_plot import build_figure

ROOT = Path(__file__).resolve().parents[2]
GROUP = "_ng_environment_server"
WINDOW = 64


@pytest.fixture(scope="module")
def storm_figure(tmp_path_factory: pytest.TempPathFactory) -> Any:
    main_file, _ = STORM.write(tmp_path_factory.mktemp("storm"))
    budget = FailureBudget(max_masked=0.2, warn_masked=0.1, window=WINDOW, group_by=[GROUP], track_blocks=True)
    run = BudgetRun(budget, FactSpec(budget.group_paths))
    check.check_paths([str(main_file)], options=CheckOptions(facts=run.spec), budget=run)
    figure = build_figure(run)
    yield figure, run
    pyplot.close(figure)


def _expected_shares() -> dict[str, dict[int, float]]:
    """Scope -> the stream's block -> share masked or failed of the scope's rollouts in it: the main file's rows
    and the failures file's (each a failed rollout) in rollout-identity order, a failed attempt before the reply
    of the same identity (SPEC 11.1), as check reads them; storm.py writes both files in identity order."""
    main_rows, failures, _ = STORM.rows()

    def key(row: dict[str, Any], failed: bool) -> tuple[int, int, int]:
        return (int(row["_ng_task_index"]), int(row["_ng_rollout_index"]), 0 if failed else 1)

    rows = [(key(row, False), row[GROUP], bool(row.get("mask_sample"))) for row in main_rows]
    rows += [(key(row, True), row[GROUP], True) for row in failures]
    stream = [(group, bad) for _, group, bad in sorted(rows, key=lambda item: item[0])]
    counts: dict[str, dict[int, list[int]]] = defaultdict(lambda: defaultdict(lambda: [0, 0]))
    for ordinal, (group, bad) in enumerate(stream, 1):
        for scope in ("all rollouts", f"{GROUP}={group}"):
            tally = counts[scope][(ordinal - 1) // WINDOW]
            tally[0] += 1
            tally[1] += bad
    return {scope: {block: bad / size for block, (size, bad) in blocks.items()} for scope, blocks in counts.items()}


def _panels(figure: Any) -> dict[str, Any]:
    return {axis.get_title(loc="left"): axis for axis in figure.axes}


def _bar_tops(axis: Any) -> dict[float, float]:
    """Bar left edge -> the height of its stack (the kinds' bands summed)."""
    tops: dict[float, float] = defaultdict(float)
    for patch in axis.patches:
        if isinstance(patch, Rectangle):
            tops[round(patch.get_x(), 6)] += patch.get_height()
    return dict(tops)


def test_every_panel_is_on_the_stream_rollout_axis(storm_figure: Any) -> None:
    figure, run = storm_figure
    panels = _panels(figure)
    assert list(panels) == ["all rollouts", f"{GROUP}=browser_env", f"{GROUP}=math_env"]
    first = figure.axes[0]
    rollouts = run.budget.rollouts
    for axis in figure.axes:
        assert first.get_shared_x_axes().joined(first, axis)
        assert axis.get_xlim() == (0.5, rollouts + 0.5)
        assert axis.get_ylabel() == "masked or failed"
    assert "rollout" in figure.axes[-1].get_xlabel()


def test_each_bar_is_its_scopes_share_in_that_block_of_the_stream(storm_figure: Any) -> None:
    figure, _ = storm_figure
    expected = _expected_shares()
    for name, axis in _panels(figure).items():
        shares = expected[name]
        tops = _bar_tops(axis)
        # A bar of block n starts at the stream's rollout n * window + 1 (its edge half a rollout before).
        drawn = {round((left - 0.5) / WINDOW): top for left, top in tops.items()}
        assert set(drawn) == set(shares), name  # every block holding a rollout of the scope, and no other
        for block, top in drawn.items():
            assert top == pytest.approx(shares[block]), (name, block)


def test_the_bounds_values_are_in_the_legend(storm_figure: Any) -> None:
    figure, _ = storm_figure
    (legend,) = figure.legends
    labels = [text.get_text() for text in legend.get_texts()]
    assert "breach above 20.0%" in labels and "warning above 10.0%" in labels
    assert {"session_lost", "agent_run_error", "first warning", "first breach"} <= set(labels)
    for axis in figure.axes:
        levels = sorted(line.get_ydata()[0] for line in axis.get_lines() if line.get_label().endswith("bound"))
        assert levels == [0.1, 0.2]


def test_the_first_warning_and_breach_are_marked_where_the_report_says(storm_figure: Any) -> None:
    figure, run = storm_figure
    first: dict[str, dict[str, int]] = defaultdict(dict)
    for event in run.events:
        scope = "all rollouts" if event.group is None else f"{GROUP}={event.group[GROUP]}"
        first[scope].setdefault(event.level, event.rollout)
    assert first["all rollouts"] == {"warning": 328, "breach": 342}  # README's storm report
    assert first[f"{GROUP}=browser_env"] == {"warning": 327, "breach": 337}
    assert f"{GROUP}=math_env" not in first  # its failed attempts now sit where they happened (SPEC 11.1)
    for name, axis in _panels(figure).items():
        marks = {
            line.get_label(): line.get_xdata()[0] for line in axis.get_lines() if line.get_label().startswith("first")
        }
        assert marks == {f"first {level}: rollout {at:,}": at for level, at in first[name].items()}, name
        notes = {text.get_text() for text in axis.texts}
        assert notes == {f"first {level}: {at:,}" for level, at in first[name].items()}, name
    assert figure._suptitle.get_text().endswith(": BREACH")


def test_a_run_without_rollouts_or_bounds_says_so(tmp_path: Path) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_text("", encoding="utf-8")
    run = BudgetRun(FailureBudget(window=WINDOW), FactSpec())
    check.check_paths([str(empty)], options=CheckOptions(facts=run.spec), budget=run)
    figure = build_figure(run)
    try:
        (axis,) = figure.axes
        assert figure._suptitle.get_text().endswith("(no bound set): TOO FEW ROLLOUTS")
        assert [text.get_text() for text in axis.texts] == ["no rollouts"] and not axis.patches
        figure.canvas.draw()  # the tick labels are made at drawing: whole rollouts only, never "0" twice
        labels = [label.get_text() for label in axis.get_xticklabels() if label.get_text()]
        assert labels == sorted(set(labels), key=labels.index) and all(label.isdigit() for label in labels)
    finally:
        pyplot.close(figure)
