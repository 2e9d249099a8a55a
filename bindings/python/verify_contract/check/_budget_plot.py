"""``check --plot``: the masked rate per window, one panel per group, stacked by failure kind, with the bounds
(matplotlib, Agg backend, the ``[plot]`` extra)."""

from __future__ import annotations

from collections import Counter

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up); mypy knows the name
if TYPE_CHECKING:
    from verify_contract.check._budget import BudgetRun

PANELS = 6
"""Groups drawn (the most masked first); the first panel is always every rollout."""
KINDS_DRAWN = 7
"""Failure kinds stacked in their own colour; the rest share one band."""


def write_plot(run: BudgetRun, path: str) -> None:
    try:
        import matplotlib
    except ImportError:
        raise ImportError("--plot needs matplotlib: pip install 'verify-contract[plot]'") from None
    matplotlib.use("Agg")  # no display: a file
    from matplotlib import pyplot
    from matplotlib.ticker import MaxNLocator

    budget = run.budget
    blocks = budget.blocks()
    groups = sorted(
        (group for group in blocks if group is not None),
        key=lambda group: -sum(budget.groups[group].counts[1:]),
    )[: PANELS - 1]
    scopes: list[tuple[str, list[tuple[int, int, Counter[str]]]]] = [("all rollouts", blocks[None])]
    for group in groups:
        name = " ".join(f"{path}={value}" for path, value in zip(budget.group_names, group, strict=True))
        scopes.append((name, blocks[group]))
    totals: Counter[str] = Counter()
    for _, scope_blocks in scopes:
        for _, _, kinds in scope_blocks:
            totals.update(kinds)
    named = [kind for kind, _ in totals.most_common(KINDS_DRAWN)]
    figure, axes = pyplot.subplots(len(scopes), 1, figsize=(10, 2.4 * len(scopes) + 0.6), sharey=True, squeeze=False)
    colours = [pyplot.get_cmap("tab10")(index) for index in range(10)]
    for axis, (name, scope_blocks) in zip(axes[:, 0], scopes, strict=True):
        axis.set_xlim(0.4, max(len(scope_blocks), 1) + 0.6)
        if scope_blocks:
            starts = list(range(1, len(scope_blocks) + 1))
            bottom = [0.0] * len(scope_blocks)
            bands = [*named, "other kinds"] if len(totals) > len(named) else named
            for index, kind in enumerate(bands):
                if kind == "other kinds":
                    heights = [
                        sum(c for k, c in kinds.items() if k not in named) / size for size, _, kinds in scope_blocks
                    ]
                else:
                    heights = [kinds.get(kind, 0) / size for size, _, kinds in scope_blocks]
                if not any(heights):
                    continue
                axis.bar(starts, heights, bottom=bottom, width=0.9, color=colours[index % len(colours)], label=kind)
                bottom = [b + h for b, h in zip(bottom, heights, strict=True)]
        else:
            axis.text(0.5, 0.5, "no rollouts", ha="center", transform=axis.transAxes)
        if budget.max_masked is not None:
            axis.axhline(budget.max_masked, color="red", linestyle="--", linewidth=1.2, label="max masked")
        if budget.warn_masked is not None:
            axis.axhline(budget.warn_masked, color="orange", linestyle=":", linewidth=1.2, label="warn")
        axis.set_ylim(0, 1.05)
        axis.xaxis.set_major_locator(MaxNLocator(integer=True))
        axis.set_ylabel("masked rate")
        axis.set_title(name, fontsize=10, loc="left")
        axis.grid(axis="y", alpha=0.3)
    handles, labels = [], []
    for axis in axes[:, 0]:
        for handle, label in zip(*axis.get_legend_handles_labels(), strict=True):
            if label not in labels:
                handles.append(handle)
                labels.append(label)
    if handles:
        figure.legend(handles, labels, loc="upper right", fontsize=8)
    axes[-1, 0].set_xlabel(
        f"window of {budget.window} rollouts of the panel's scope, in the order read (the last may be partial)"
    )
    verdict = budget.verdict()
    figure.suptitle(f"masked or failed rollouts per window: {verdict}", x=0.02, ha="left", fontsize=11)
    figure.tight_layout(rect=(0, 0, 0.85, 0.97))
    from verify_contract.check._outputs import written_whole

    try:
        with written_whole(path, ".png") as temporary:
            figure.savefig(temporary, dpi=100)
    finally:
        pyplot.close(figure)
