"""Counts as the reports word them: the number with thousands separators, the noun singular for one ("1 input",
"1,226 lines"), so that every report reads the same."""

from __future__ import annotations


def counted(number: int, noun: str, plural: str | None = None) -> str:
    """``counted(1, "input")`` is "1 input", ``counted(1226, "line")`` "1,226 lines"; ``plural`` for a noun
    that does not take an s ("1 reply", "2 replies")."""
    if number == 1:
        return f"1 {noun}"
    return f"{number:,} {plural or noun + 's'}"
