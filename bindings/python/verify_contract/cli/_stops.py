"""Clean stops: SIGTERM (what systemd, Kubernetes and ``timeout`` send) and SIGHUP (a closed terminal) stop a
command as ^C (SIGINT) does, with no traceback and the shell's status for the signal (128 + its number: 130,
143, 129). ``check --follow`` finishes its summary, retry list and metrics first (``deferred``); a breached
budget keeps its exit 3 over any of them (``check``'s precedence: 3, then the stop, then the rest).
"""

from __future__ import annotations

import os
import signal
from contextlib import contextmanager

from verify_contract.cli._exit_codes import exit_for_signal

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up); mypy knows the name
if TYPE_CHECKING:
    from collections.abc import Iterator
    from types import FrameType

STOP_SIGNALS = (signal.SIGTERM, signal.SIGHUP)
"""Stop like SIGINT; a second one while the command winds down ends it at once (their default action)."""


class Stopped(KeyboardInterrupt):
    """A stop asked by a signal other than SIGINT: handled wherever ^C is, its exit status its own."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


def _raise(signum: int, frame: FrameType | None) -> None:
    for number in STOP_SIGNALS:  # a second stop signal: the default (end now), not a second summary
        signal.signal(number, signal.SIG_DFL)
    raise Stopped(signum)


_active = False  # whether ``installed`` is in force (a forked child then puts the defaults back)
_fork_hook = False


def _default_in_child() -> None:
    """A forked ``--jobs`` worker dies of SIGTERM, as ``multiprocessing.Pool.terminate`` expects."""
    if _active:
        for number in STOP_SIGNALS:
            signal.signal(number, signal.SIG_DFL)


@contextmanager
def installed() -> Iterator[None]:
    """While active, SIGTERM and SIGHUP raise ``Stopped`` (a ``KeyboardInterrupt``) in the main thread; the
    handlers before are put back after (``main`` may be called in a test's process). Off the main thread,
    where Python cannot set handlers, nothing changes."""
    global _active, _fork_hook
    previous = {number: signal.getsignal(number) for number in STOP_SIGNALS}
    try:
        for number in STOP_SIGNALS:
            if previous[number] is not signal.SIG_IGN:  # ignored on purpose (nohup): left ignored
                signal.signal(number, _raise)
    except ValueError:  # not the main thread
        yield
        return
    if not _fork_hook:
        os.register_at_fork(after_in_child=_default_in_child)
        _fork_hook = True
    _active = True
    try:
        yield
    finally:
        _active = False
        for number, handler in previous.items():
            if handler is not None:
                signal.signal(number, handler)


def exit_status(stop: KeyboardInterrupt) -> int:
    """The signal's exit code (``_exit_codes``): 130 for ^C, 143 for SIGTERM, 129 for SIGHUP."""
    return exit_for_signal(stop.signum if isinstance(stop, Stopped) else signal.SIGINT)


def message(stop: KeyboardInterrupt) -> str:
    """What the command says when stopped: "interrupted", with the signal's name unless it was ^C."""
    return f"interrupted ({signal.Signals(stop.signum).name})" if isinstance(stop, Stopped) else "interrupted"


class StopRequest:
    """The first stop signal received while ``deferred`` is active (its number), or 0."""

    signum = 0


@contextmanager
def deferred() -> Iterator[StopRequest]:
    """SIGINT, SIGTERM and SIGHUP only set ``StopRequest.signum`` while active: a loop stops at its next safe
    point (a ``--follow`` poll), never inside a half-counted chunk. A second signal stops at once
    (``KeyboardInterrupt`` or ``Stopped``)."""
    request = StopRequest()
    numbers = (signal.SIGINT, *STOP_SIGNALS)
    previous = {number: signal.getsignal(number) for number in numbers}

    def note(signum: int, frame: FrameType | None) -> None:
        if request.signum:
            if signum == signal.SIGINT:
                raise KeyboardInterrupt
            raise Stopped(signum)
        request.signum = signum

    for number in numbers:
        if previous[number] is not signal.SIG_IGN:
            signal.signal(number, note)
    try:
        yield request
    finally:
        for number, handler in previous.items():
            if handler is not None:  # None: set outside Python, left as it is
                signal.signal(number, handler)


__all__ = ["STOP_SIGNALS", "StopRequest", "Stopped", "deferred", "exit_status", "installed", "message"]
