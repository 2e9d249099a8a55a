"""Following a growing rollout file (SPEC 11): ``Follow`` checks its lines as a run writes them, as ``tail -F``
follows a log, feeding a ``FailureBudget``, and yields what happens, in order.

Whole lines are checked as they arrive (a partial last line waits for its newline); the file's failures
file (``<stem>_failures.jsonl``) is followed too, its rows merged into the main file's by arrival and then
by identity (SPEC 11.1). Rotation and truncation are ``check._tail``'s: a rotated file is drained before the
new one is read, a truncated one read again from its start, the backlog in bounded chunks, and a line that
could not be read is counted. Each poll yields, in this order: the notices of the files followed, then for
each chunk of lines its findings and the budget events they caused, then the failures file's. A budget event
is yielded within a poll interval of the line that caused it; ``metrics_file`` is refreshed every window.

The follow ends when ``stop_requested()`` answers true or ``stop()`` is called (at the next poll, never inside
a half-counted chunk), or at the first breach with ``stop_at_breach``; then ``report`` is complete: the
lines that could not be read are its input errors and the budget's findings on the run as a whole are in.
``verify-contract check --follow`` prints what this yields.
"""

from __future__ import annotations

import os
import time

from verify_contract.check._budget import FailuresRows, budget_run, numbered_lines
from verify_contract.check._failures_files import failures_file_of
from verify_contract.check._lines import CheckOptions, check_chunk
from verify_contract.check._report import LocatedFinding, Report
from verify_contract.check._run import add_budget_findings, add_failures_file_findings
from verify_contract.check._tail import Tail
from verify_contract.records import FrozenRecord

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up); mypy knows the name
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from typing import TypeAlias

    from verify_contract.budget import BudgetEvent, FailureBudget

    FollowEvent: TypeAlias = LocatedFinding | BudgetEvent | "FollowNotice"
    """What ``Follow`` yields: a finding (of a main-file or a failures-file line), a budget event, a notice."""

POLL_SECONDS = 0.1
"""How often a followed file is looked at when nothing is left to read: a breach is yielded within this (plus
the check) of its line."""


class FollowNotice(FrozenRecord):
    """Something the follower tells about the files it follows: a file that does not exist yet, a rotation,
    a truncation, a line that could not be read, a metrics file that could not be written (the follow goes
    on). One line of text, naming the file."""

    __slots__ = ("text",)
    text: str

    def __init__(self, text: str) -> None:
        self._freeze(text)

    def __str__(self) -> str:
        return self.text


class Follow:
    """One followed file and its failures file, checked and fed to ``budget`` as they grow; iterate it for the
    events, once: each a ``LocatedFinding`` (of a main-file or a failures-file line), a ``BudgetEvent`` or a
    ``FollowNotice``.

    - ``options``: the contract version and profile, the findings listed and the pre-check (``CheckOptions``;
      its ``facts`` are the budget's, set here).
    - ``failures_file``: follow ``<stem>_failures.jsonl`` beside a ``<stem>.jsonl`` (SPEC 11.1).
    - ``metrics_file``: Prometheus text metrics written every window (the ``[metrics]`` extra); one that
      cannot be written is a notice, told once, and tried again each window.
    - ``stop_at_breach``: end the follow after the poll in which the budget is first breached.
    - ``stop_requested``: asked at every poll; the follow ends when it answers true (``stop()`` too).
    Raises ``TailError`` while iterating when the file cannot be followed (gzip, a FIFO, a device, a
    directory, no permission): nothing is reported then.
    """

    def __init__(
        self,
        path: str,
        budget: FailureBudget,
        options: CheckOptions | None = None,
        *,
        failures_file: bool = True,
        metrics_file: str | None = None,
        stop_at_breach: bool = False,
        stop_requested: Callable[[], object] | None = None,
        poll_seconds: float = POLL_SECONDS,
    ) -> None:
        options = options or CheckOptions()
        self.path = path
        self.run = budget_run(budget)
        self.options = CheckOptions(
            options.version, options.profile, options.max_findings, options.fast, facts=self.run.spec
        )
        self.report = Report(options.version, options.profile, options.max_findings, files=1)
        self.report.budget = self.run
        self.failures_path = failures_file_of(path) if failures_file else None
        self.metrics_file = metrics_file
        self.stop_at_breach = stop_at_breach
        self.stop_requested = stop_requested
        self.poll_seconds = poll_seconds
        self.stopped = False
        """Whether the follow ended because a stop was asked (not at a breach with ``stop_at_breach``)."""
        self._pending: list[FollowEvent] = []
        self._listed = 0  # findings of the report yielded so far
        self._failures_seen = False  # whether the failures file has had rows: its findings are taken each poll
        self._refreshed = 0  # rollouts when the metrics file was last written
        self._metrics_failed = False
        self._iterated = False

    def stop(self) -> None:
        """End the follow at its next poll (from another thread, or from the loop over the events)."""
        self.stopped = True

    def _stopping(self) -> bool:
        if not self.stopped and self.stop_requested is not None and self.stop_requested():
            self.stopped = True
        return self.stopped

    def _notice(self, text: str) -> None:
        self._pending.append(FollowNotice(text))

    def _event(self, event: BudgetEvent) -> None:
        self._pending.append(event)

    def _new_findings(self) -> None:
        """The findings the report gained since the last call, each yielded once."""
        findings = self.report.findings
        self._pending.extend(findings[self._listed :])
        self._listed = len(findings)

    def __iter__(self) -> Iterator[FollowEvent]:
        if self._iterated:
            raise RuntimeError("a Follow is iterated once")
        self._iterated = True
        self.run.on_event = self._event
        main = Tail(self.path, self._notice)
        side = Tail(self.failures_path, self._notice) if self.failures_path is not None else None
        tails = [tail for tail in (main, side) if tail is not None]
        try:
            if not os.path.exists(self.path):
                self._notice(f"{self.path}: does not exist yet; waiting for it")
            while not self._stopping():
                self._poll(main, side)
                yield from self._drain()
                if self.stop_at_breach and self.run.breached():
                    break
                if not main.more and (side is None or not side.more):  # a backlog is read on without a pause
                    time.sleep(self.poll_seconds)
        finally:
            for tail in tails:
                tail.close()
        for tail in tails:
            tail.finish()
            if tail.lost_lines:
                self.report.input_errors.append(
                    f"{tail.path}: {tail.lost_lines:,} lines could not be read (see the notices above)"
                )
        yield from self._drain()
        add_budget_findings(self.report)

    def _drain(self) -> Iterator[FollowEvent]:
        pending, self._pending = self._pending, []
        yield from pending

    def _poll(self, main: Tail, side: Tail | None) -> None:
        run, report = self.run, self.report
        merging = False
        pieces = side.read() if side is not None else []
        if side is not None and pieces:
            self._failures_seen = True
            numbered = (row for rows, first in pieces for row in numbered_lines(rows.splitlines(), first))
            merge = FailuresRows(side.path, numbered, run.spec.group_paths, run.failures_file_read(side.path))
            head = merge.head()
            merging = head is not None and head[3] is not None
            run.merge_failures([self.path], {self.path: merge}, [])
        # A poll that read failures rows with identities merges them into its main lines (SPEC 11.1, by arrival
        # and then by identity): those lines are read with their identities.
        options = self.options
        if merging:
            options = CheckOptions(
                options.version,
                options.profile,
                options.max_findings,
                options.fast,
                facts=run.spec.ordering(frozenset([self.path])),
            )
        for whole, first in main.read():
            room = report.max_findings - len(report.findings)
            tally = check_chunk(whole, first, self.path, options, room)
            facts, tally.facts = tally.facts, []
            report.tally.merge(tally)
            self._new_findings()
            for chunk_facts in facts:
                run.feed(chunk_facts)
        run.finish_failures()  # the poll's failures rows left after its main lines; events reported now
        if side is not None and self._failures_seen:
            add_failures_file_findings(report, side.path, run.failures_file_read(side.path))
            self._new_findings()
        self._refresh_metrics()

    def _refresh_metrics(self) -> None:
        if self.metrics_file is None or self.run.budget.rollouts - self._refreshed < self.run.budget.window:
            return
        from verify_contract.check._budget_metrics import write_metrics

        self._refreshed = self.run.budget.rollouts
        try:
            write_metrics(self.report, self.metrics_file)
        except OSError as failed:  # told once; tried again each window, and at the end (the caller's outputs)
            if not self._metrics_failed:
                self._notice(f"--metrics-file {failed.filename}: {failed.strerror}; still following")
            self._metrics_failed = True


__all__ = ["POLL_SECONDS", "Follow", "FollowNotice"]
