"""The window pass's results in Python (``_window.python_window_scan``): twins of the compiled
``_fastscan.WindowScan`` and ``_fastscan.WindowEvent``, field for field, so a caller reads either by name
(test_fastscan_boundary.py holds the fields together). A module of its own so that ``typing`` is
imported only where the compiled pass is missing."""

from __future__ import annotations

from typing import NamedTuple


class WindowEvent(NamedTuple):
    """A window entering a level, or a run reaching the limit (``_fastscan.c``'s ``window_scan`` docstring)."""

    k: int
    order: int
    inside: int
    size: int
    start: int
    run: int


class WindowScan(NamedTuple):
    """One window pass over a run (``_fastscan.c``'s ``window_scan`` docstring says what each value is)."""

    worst: float
    worst_at: int
    worst_inside: int
    worst_size: int
    longest: int
    longest_at: int
    last_run: int
    active: tuple[bool, ...]
    events: list[WindowEvent]
