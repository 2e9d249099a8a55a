"""Following a growing file through the library (``verify_contract.check.Follow``), without the command line:
a writer process appends to a real file while ``Follow`` yields its findings, budget events and notices."""

from __future__ import annotations

import os
import queue
import threading
import time
from collections import Counter
from pathlib import Path

import pytest
from test_budget_follow import DEADLINE, MASKED, USABLE, _writer, read_to_end

from verify_contract.budget import BudgetEvent, FailureBudget
from verify_contract.check import CheckOptions, Follow, FollowNotice, LocatedFinding

INVALID = "{}\n"  # breaks the contract (no reward): a finding, and a failed rollout for the budget

pytestmark = pytest.mark.skipif(not Path("/proc/self/fdinfo").is_dir(), reason="readiness is read in /proc")


class Events:
    """A ``Follow`` iterated in a thread of this process; what it yields, taken as it comes."""

    def __init__(self, followed: Follow) -> None:
        self.followed = followed
        self.queue: queue.Queue[object] = queue.Queue()
        self.seen: list[object] = []
        self.failed: list[BaseException] = []
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        try:
            for event in self.followed:
                self.queue.put(event)
        except BaseException as error:  # handed to the test's thread, which asserts there is none
            self.failed.append(error)
        self.queue.put(None)

    def until(self, wanted: type, where: tuple[str, int | None] | None = None) -> object:
        """The first event of type ``wanted`` (at ``where``), within the deadline."""
        end = time.monotonic() + DEADLINE
        while time.monotonic() < end:
            try:
                event = self.queue.get(timeout=0.05)
            except queue.Empty:
                continue
            assert event is not None, ("the follow ended first", self.failed, self.seen)
            self.seen.append(event)
            if isinstance(event, wanted) and (where is None or _where(event) == where):
                return event
        raise AssertionError(f"no {wanted.__name__} at {where} within {DEADLINE} s: {self.seen}")

    def end(self) -> list[object]:
        """The rest of the events once the follow has ended (within the deadline)."""
        self.thread.join(DEADLINE)
        assert not self.thread.is_alive(), "the follow did not end"
        assert not self.failed, self.failed
        while (event := self.queue.get_nowait()) is not None:
            self.seen.append(event)
        return self.seen


def _where(event: object) -> tuple[str, int | None] | None:
    if isinstance(event, LocatedFinding):
        return event.path, event.line
    if isinstance(event, BudgetEvent):
        return event.where
    return None


def test_a_growing_file_and_its_failures_file_are_followed_through_the_library(tmp_path: Path) -> None:
    path, failures = tmp_path / "rollouts.jsonl", tmp_path / "rollouts_failures.jsonl"
    path.write_text(USABLE * 2)
    budget = FailureBudget(max_masked=0.2, window=10)
    deadline = time.monotonic() + DEADLINE  # a stop the follow asks for at every poll: the test is bounded
    followed = Follow(
        str(path),
        budget,
        CheckOptions(profile="core"),
        stop_at_breach=True,
        stop_requested=lambda: time.monotonic() > deadline,
    )
    events = Events(followed)
    read_to_end(os.getpid(), path)  # the two lines there before the follow are read: it reads as the file grows
    failures.write_text("not json\n")  # the failures file appears later: followed by name
    events.until(LocatedFinding, (str(failures), 1))
    # Lines 3-12 appended by another process: the window of 10 passes 20% at its third failed or masked line,
    # the last one (line 10 breaks the contract, 11 and 12 are masked).
    writer = _writer(path, [USABLE] * 7 + [INVALID] + [MASKED] * 2, 0.02)
    writer.communicate(timeout=DEADLINE)
    breach = events.until(BudgetEvent, (str(path), 12))
    assert isinstance(breach, BudgetEvent) and (breach.level, breach.rule) == ("breach", "budget-masked-rate")
    seen = events.end()
    assert not followed.stopped  # ended by the breach, not by the deadline's stop
    report = followed.report
    assert (report.lines, report.valid, report.invalid, report.masked) == (12, 11, 1, 2)
    assert report.budget is not None and report.budget.budget.rollouts == 12 and report.budget.breached()
    # Each finding yielded once, in the report's order: the failures file's, then line 10's.
    findings = [(event.path, event.line, event.finding.rule) for event in seen if isinstance(event, LocatedFinding)]
    assert findings == [(str(failures), 1, "budget-sidecar-unreadable"), (str(path), 10, "reward-required")]
    assert Counter(type(event) for event in seen)[BudgetEvent] == 1
    assert [str(event) for event in seen if isinstance(event, FollowNotice)] == []


def test_a_stop_ends_the_follow_with_its_report_complete(tmp_path: Path) -> None:
    path = tmp_path / "later.jsonl"
    followed = Follow(str(path), FailureBudget(window=2, expected=4), failures_file=False)
    events = Events(followed)
    notice = events.until(FollowNotice)
    assert str(notice) == f"{path}: does not exist yet; waiting for it"
    path.write_text(USABLE + MASKED + INVALID)
    read_to_end(os.getpid(), path)
    followed.stop()
    events.end()
    assert followed.stopped
    report = followed.report
    assert (report.lines, report.invalid, report.masked) == (3, 1, 1)
    # The budget's findings on the run as a whole are in once the follow ends: one expected rollout has no row.
    assert [(found.path, found.finding.rule) for found in report.findings[-1:]] == [("<run>", "budget-missing")]
