"""How ``check`` shows a failure budget (SPEC 11): the text section, the events, the retry list."""

from __future__ import annotations

import json

from verify_contract._budget_caps import MAX_DISTINCT
from verify_contract._counted import counted
from verify_contract.budget import OTHER

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up); mypy knows the name
if TYPE_CHECKING:
    from typing import Any

    from verify_contract.budget import BudgetEvent
    from verify_contract.check._budget import BudgetRun

EVENTS_LISTED = 20
"""Budget events listed above the summary; the counts stay exact."""
GROUPS_LISTED = 10
KINDS_LISTED = 8


def _rate(value: float | None) -> str:
    return "none" if value is None else f"{value:.1%}"


def event_line(event: BudgetEvent) -> str:
    """``file:line: breach [rule] message (rollout N)``: one line, as check's findings read."""
    return str(event)


def _located(event: dict[str, Any] | None) -> str:
    if event is None:
        return "none"
    where = f"{event['file']}:{event['line']}, " if "file" in event else ""
    return f"{where}rollout {event['rollout']:,}: {event['message']}"


def _kinds(kinds: dict[str, int]) -> str:
    items = list(kinds.items())
    text = ", ".join(f"{kind} {count:,}" for kind, count in items[:KINDS_LISTED])
    if len(items) > KINDS_LISTED:
        text += f", ... {len(items) - KINDS_LISTED:,} more"
    return text or "none"


def budget_text(run: BudgetRun, events: bool = True) -> list[str]:
    """The budget's lines of the text report: events first (capped), then the section."""
    data = run.summary()
    settings = data["settings"]
    lines = [event_line(event) for event in run.events[:EVENTS_LISTED]] if events else []
    total = run.events_total
    if events and total > EVENTS_LISTED:
        kept = len(run.events)
        where = "all in --format json" if kept == total else f"the first {kept:,} in --format json, the rest counted"
        lines.append(f"... {counted(total - EVENTS_LISTED, 'more budget event')} ({where})")
    bounds = [f"window {settings['window']:,}", f"min samples {settings['min_samples']:,}"]
    bounds.append(f"max masked {_rate(settings['max_masked'])}")
    if settings["warn_masked"] is not None:
        bounds.append(f"warn {_rate(settings['warn_masked'])}")
    if settings["max_consecutive_masked"] is not None:
        bounds.append(f"max consecutive {settings['max_consecutive_masked']:,}")
    if settings["group_by"]:
        bounds.append("by " + ",".join(settings["group_by"]))
    lines.append(f"failure budget ({'; '.join(bounds)}): {data['verdict'].upper()}")
    worst = data["worst_window"]
    worst_text = (
        f"worst window {_rate(worst['rate'])} ({worst['masked']:,} of {worst['window']:,}) "
        f"at rollout {worst['rollout']:,}"
        if worst
        else "no window judged"
    )
    lines.append(
        f"  {counted(data['rollouts'], 'rollout')}: {data['ok']:,} usable, {data['masked']:,} masked, "
        f"{data['failed']:,} failed "
        f"({_rate(data['masked_rate'])} masked or failed); {worst_text}; "
        f"longest masked run {data['longest_masked_run']:,}"
    )
    if data["first_warning"] is not None:
        lines.append(f"  first warning: {_located(data['first_warning'])}")
    if data["first_breach"] is not None:
        lines.append(f"  first breach: {_located(data['first_breach'])}")
    lines.append(f"  by failure kind: {_kinds(data['kinds'])}")
    groups = data["groups"]
    for group in groups[:GROUPS_LISTED]:
        name = " ".join(f"{path}={value}" for path, value in group["group"].items())
        worst = group["worst_window"]
        lines.append(
            f"  {name}: {counted(group['rollouts'], 'rollout')}, {group['masked']:,} masked, "
            f"{group['failed']:,} failed "
            f"({_rate(group['masked_rate'])}); worst window {_rate(worst['rate']) if worst else 'not judged'}; "
            f"kinds: {_kinds(group['kinds'])}"
        )
    if len(groups) > GROUPS_LISTED:
        lines.append(f"  ... {counted(len(groups) - GROUPS_LISTED, 'more group')} (all in --format json)")
    cap = data.get("group_cap")
    if cap and cap["other_rollouts"]:
        lines.append(
            f"  more than {cap['cap']:,} distinct groups: the first {cap['cap']:,} kept apart, "
            f"{counted(cap['other_rollouts'], 'rollout')} of the others counted together as {OTHER}"
        )
    for path, counts in data["failures_files"].items():
        by_count = sorted(counts["classes"].items(), key=lambda item: (-item[1], item[0]))
        classes = _kinds(dict(by_count))
        if OTHER in counts["classes"]:
            classes += f"; classes past the first {MAX_DISTINCT:,} counted as {OTHER}"
        lines.append(
            f"  failures file {path}: {counted(counts['rows'], 'failed rollout')} ({classes}); "
            f"{counts['unreadable']:,} unreadable, {counted(counts['blank'], 'blank line')}"
        )
    expected = data["expected"]
    if expected is not None:
        lost = f"; {expected['breach']:.1%} of them masked, failed or missing: BREACH" if "breach" in expected else ""
        lines.append(
            f"  expected {counted(expected['expected'], 'rollout')}: {expected['present']:,} present, "
            f"{expected['missing']:,} missing{lost}"
        )
    return lines


def write_retry_list(run: BudgetRun, path: str) -> int:
    """The rollouts to run again as JSON lines, written whole or not at all (streamed: a grid's missing
    identities are generated as they are written); returns how many."""
    from verify_contract.check._outputs import written_whole

    written = 0
    with written_whole(path) as temporary, open(temporary, "w", encoding="utf-8") as stream:
        for row in run.retry_rows():
            stream.write(json.dumps(row, ensure_ascii=False, sort_keys=False) + "\n")
            written += 1
    return written
