"""``check --plot``: the share of masked or failed rollouts per window, one panel per group, stacked by failure
kind, with the bounds and the first warning and breach of each panel (matplotlib, Agg backend, the ``[plot]``
extra).

Every panel has the same x axis, the stream's rollout ordinal (the "rollout N" of the report), so that a group's
storm lines up with the whole stream's: a bar spans a block of ``window`` consecutive rollouts of the stream, and
a group's bar is the share of that group's rollouts in the block that were masked or failed.
"""

from __future__ import annotations

from collections import Counter

from verify_contract.check._budget_report import _rate

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up); mypy knows the name
if TYPE_CHECKING:
    from typing import Any, Literal

    from verify_contract.budget import BudgetEvent
    from verify_contract.check._budget import BudgetRun

PANELS = 6
"""Groups drawn (the most masked first); the first panel is always every rollout."""
KINDS_DRAWN = 7
"""Failure kinds stacked in their own colour; the rest share one band."""
COLOURS = {"warning": "darkorange", "breach": "red"}
"""Each level's colour, for its bound (a thin dashed or dotted line across) and its first event (a solid line)."""
BOUND_STYLES: dict[str, Literal[":", "--"]] = {"warning": ":", "breach": "--"}


def _first_events(events: list[BudgetEvent], names: tuple[str, ...]) -> dict[tuple[str, ...] | None, dict[str, int]]:
    """Each scope's first warning and first breach (either rule): scope -> level -> the stream's rollout."""
    first: dict[tuple[str, ...] | None, dict[str, int]] = {}
    for event in events:
        scope = None if event.group is None else tuple(event.group[name] for name in names)
        first.setdefault(scope, {}).setdefault(event.level, event.rollout)
    return first


def build_figure(run: BudgetRun) -> Any:
    """The figure ``write_plot`` saves (a matplotlib ``Figure``; the caller closes it)."""
    try:
        import matplotlib
    except ImportError:
        raise ImportError("--plot needs matplotlib: pip install 'verify-contract[plot]'") from None
    matplotlib.use("Agg")  # no display: a file
    from matplotlib import pyplot
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch
    from matplotlib.ticker import FuncFormatter, MaxNLocator

    budget = run.budget
    window = budget.window
    total = budget.rollouts
    blocks = budget.blocks()
    groups = sorted(
        (group for group in blocks if group is not None),
        key=lambda group: -sum(budget.groups[group].counts[1:]),
    )[: PANELS - 1]
    scopes: list[tuple[tuple[str, ...] | None, str]] = [(None, "all rollouts")]
    for group in groups:
        scopes.append(
            (group, " ".join(f"{path}={value}" for path, value in zip(budget.group_names, group, strict=True)))
        )
    totals: Counter[str] = Counter()
    for scope, _ in scopes:
        for _, _, kinds in blocks[scope]:
            totals.update(kinds)
    named = [kind for kind, _ in totals.most_common(KINDS_DRAWN)]
    bands = [*named, "other kinds"] if len(totals) > len(named) else named
    colours = {kind: pyplot.get_cmap("tab10")(index % 10) for index, kind in enumerate(bands)}
    first = _first_events(run.events, budget.group_names)
    bounds = {"breach": budget.max_masked, "warning": budget.warn_masked}

    figure, axes = pyplot.subplots(
        len(scopes), 1, figsize=(10, 2.3 * len(scopes) + 1.0), sharex=True, sharey=True, squeeze=False
    )
    for axis, (scope, name) in zip(axes[:, 0], scopes, strict=True):
        # Block n spans the stream's rollouts n * window + 1 to (n + 1) * window: its bar's edges at the halves.
        lefts = [number * window + 0.5 for number in range(len(blocks[scope]))]
        widths = [min(window, total - number * window) for number in range(len(blocks[scope]))]
        drawn = [index for index, (size, _, _) in enumerate(blocks[scope]) if size]
        bottom = [0.0] * len(drawn)
        for kind in bands:
            heights = []
            for index in drawn:
                size, _, kinds = blocks[scope][index]
                count = sum(c for k, c in kinds.items() if k not in named) if kind == "other kinds" else kinds[kind]
                heights.append(count / size)
            if any(heights):
                axis.bar(
                    [lefts[i] for i in drawn],
                    heights,
                    width=[widths[i] * 0.94 for i in drawn],
                    bottom=bottom,
                    align="edge",
                    color=colours[kind],
                    label=kind,
                )
                bottom = [b + h for b, h in zip(bottom, heights, strict=True)]
        if not drawn:
            axis.text(0.5, 0.5, "no rollouts", ha="center", transform=axis.transAxes)
        for level, bound in bounds.items():
            if bound is not None:
                axis.axhline(
                    bound, color=COLOURS[level], linestyle=BOUND_STYLES[level], linewidth=1.0, label=f"{level} bound"
                )
        for level in ("warning", "breach"):
            rollout = first.get(scope, {}).get(level)
            if rollout is None:
                continue
            axis.axvline(rollout, color=COLOURS[level], linewidth=1.8, label=f"first {level}: rollout {rollout:,}")
            # Beside its line, on a white ground so that it reads over a bar: the breach to the right of its line
            # and the warning to the left, a line lower (they are often a few rollouts apart), each turned inwards
            # near an end of the axis so that it stays inside.
            right = rollout < 0.8 * total if level == "breach" else rollout < 0.2 * total  # a label: ~18% of the width
            axis.annotate(
                f"first {level}: {rollout:,}",
                xy=(rollout, 1.0),
                xycoords=("data", "axes fraction"),
                xytext=(4 if right else -4, -4 if level == "breach" else -16),
                textcoords="offset points",
                ha="left" if right else "right",
                va="top",
                fontsize=8,
                color=COLOURS[level],
                bbox={"facecolor": "white", "edgecolor": "none", "alpha": 0.85, "pad": 1.5},
            )
        axis.set_ylim(0, 1.05)
        axis.set_ylabel("masked or failed")
        axis.yaxis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:.0%}"))
        axis.set_title(name, fontsize=10, loc="left")
        axis.grid(axis="y", alpha=0.3)
    last = axes[-1, 0]
    last.set_xlim(0.5, max(total, 1) + 0.5)
    last.xaxis.set_major_locator(MaxNLocator(integer=True))
    last.xaxis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:,.0f}" if value == int(value) else ""))
    last.set_xlabel(f"rollout, in the order read (the report's numbers); a bar: {window:,} rollouts")
    handles: list[Any] = [Patch(color=colours[kind], label=kind) for kind in bands]
    for level in ("breach", "warning"):
        bound = bounds[level]
        if bound is not None:
            handles.append(
                Line2D(
                    [], [], color=COLOURS[level], linestyle=BOUND_STYLES[level], label=f"{level} above {_rate(bound)}"
                )
            )
    for level in ("warning", "breach"):
        if any(level in levels for levels in first.values()):
            handles.append(Line2D([], [], color=COLOURS[level], linewidth=1.8, label=f"first {level}"))
    if handles:
        figure.legend(handles=handles, loc="upper left", bbox_to_anchor=(0.79, 0.93), fontsize=8, frameon=False)
    # The bounds are judged over a sliding window of the last ``window`` rollouts; the bars are its tumbling blocks.
    judged = []
    if budget.max_masked is not None or budget.warn_masked is not None:
        judged.append(f"rates judged on the last {window:,} rollouts")
    if budget.max_consecutive is not None:
        judged.append(f"breach above {budget.max_consecutive:,} in a row")
    figure.suptitle(
        f"share of rollouts masked or failed per {window:,} ({'; '.join(judged) or 'no bound set'}): "
        f"{budget.verdict().upper()}",
        x=0.02,
        ha="left",
        fontsize=11,
    )
    figure.tight_layout(rect=(0, 0, 0.79, 0.97))
    return figure


def write_plot(run: BudgetRun, path: str) -> None:
    figure = build_figure(run)
    from matplotlib import pyplot

    from verify_contract.check._outputs import written_whole

    try:
        with written_whole(path, ".png") as temporary:
            figure.savefig(temporary, dpi=100)
    finally:
        pyplot.close(figure)
