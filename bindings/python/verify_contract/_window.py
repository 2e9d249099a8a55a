"""The failure budget's window pass: the sliding windows, consecutive runs and level changes over a run of
masked or failed rollouts (``FailureBudget.record_run``), in the compiled ``_fastscan.window_scan`` or, without
it, the same loop in Python.

A module of its own beside ``budget``: the library's budget reaches the compiled code without importing the
check pipeline (``_fastscan`` is built into the ``check`` package, whose ``__init__`` imports nothing).
"""

from __future__ import annotations

from collections.abc import Callable

try:  # typed by _fastscan.pyi
    from verify_contract.check import _fastscan as _native
except ImportError:  # no C compiler when the package was installed
    _native = None  # type: ignore[assignment]

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up); mypy knows the name
if TYPE_CHECKING:
    from verify_contract._window_results import WindowScan

WindowPass = Callable[
    [list[int], list[int], int, int, int, tuple[float, ...], tuple[bool, ...], int, bool, int],
    "WindowScan | _native.WindowScan",  # the compiled pass's own type, with the same fields
]
"""(carried, offsets, first, window, judged, bounds, active, carried_run, follows_carried, limit) -> WindowScan."""


def window_scan() -> WindowPass:
    """The window pass to call (arguments: ``_fastscan.window_scan``'s, which says what each value is): the
    compiled one, else ``python_window_scan``. Chosen at each call, so a test can set ``_native`` to None."""
    return python_window_scan if _native is None else _native.window_scan


def python_window_scan(
    carried: list[int],
    offsets: list[int],
    first: int,
    window: int,
    judged: int,
    bounds: tuple[float, ...],
    active: tuple[bool, ...],
    carried_run: int,
    follows_carried: bool,
    limit: int,
) -> WindowScan:
    """``window_scan`` without the compiled module: the C loop, step for step (a test holds the two together)."""
    from verify_contract._window_results import WindowEvent, WindowScan  # typing's import only on this path

    ordinals = [*carried, *(first + offset for offset in offsets)]
    above = list(active)
    events: list[WindowEvent] = []
    worst, worst_at, worst_inside, worst_size = -1.0, -1, 0, 0
    start, longest, longest_at, run = 0, 1, 0, carried_run
    base = len(carried)
    for k in range(len(offsets)):
        at = base + k
        ordinal = ordinals[at]
        while ordinals[start] <= ordinal - window:  # the window is (ordinal - window, ordinal]
            start += 1
        follows = ordinals[at] == ordinals[at - 1] + 1 if k else follows_carried
        run = run + 1 if follows else 1
        if run > longest:
            longest, longest_at = run, k
        inside, size = at - start + 1, min(ordinal, window)
        if run == limit:
            events.append(WindowEvent(k, 0, inside, size, start, run))
        if k < judged:
            continue
        rate = inside / size
        if rate > worst:
            worst, worst_at, worst_inside, worst_size = rate, k, inside, size
        for level, bound in enumerate(bounds):
            now = rate > bound
            if now and not above[level]:
                events.append(WindowEvent(k, level + 1, inside, size, start, run))
            above[level] = now
    return WindowScan(worst, worst_at, worst_inside, worst_size, longest, longest_at, run, tuple(above), events)
