"""``check --follow FILE``: check a rollout file while a run writes it, as ``tail -F`` follows a log.

Whole lines are checked as they arrive (a partial last line waits for its newline); the file's failures
file (``<stem>_failures.jsonl``) is followed too. A truncated file is read again from its start, a rotated one
(a new file under the name) from the start of the new file, after the rest of the old one. Budget events are
printed as they happen, within a poll interval of the line that caused them; the metrics file is refreshed
every window. ^C prints the summary and exits 130; ``--fail-fast`` stops at the first breach (exit 3).
"""

from __future__ import annotations

import json
import os
import sys
import time

from verify_contract.check._budget import BudgetRun, SidecarRead, sidecar_lines
from verify_contract.check._lines import CheckOptions, check_chunk
from verify_contract.check._report import Report
from verify_contract.check._run import add_budget_findings, add_sidecar_findings
from verify_contract.check._source import GZIP_MAGIC
from verify_contract.cli._exit_codes import EXIT_BUDGET, EXIT_USAGE

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up); mypy knows the name
if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable
    from typing import BinaryIO

    from verify_contract.budget import BudgetEvent

POLL_SECONDS = 0.1
"""How often a followed file is looked at: a breach is reported within this (plus the check) of its line."""
READ_BYTES = 1 << 20


class FollowError(Exception):
    """The file cannot be followed (gzip, a directory, several inputs): one line, exit 2."""


class _Tail:
    """One followed file: complete lines as they are appended, across truncation and rotation."""

    def __init__(self, path: str, notice: Callable[[str], None]) -> None:
        self.path = path
        self.notice = notice
        self.stream: BinaryIO | None = None
        self.inode: tuple[int, int] | None = None
        self.position = 0
        self.pending = b""
        self.line = 1  # number of the next complete line

    def _open(self) -> bool:
        try:
            stream = open(self.path, "rb")  # noqa: SIM115 (kept open while followed)
        except FileNotFoundError:
            return False
        head = stream.read(2)
        if head == GZIP_MAGIC:
            stream.close()
            raise FollowError(f"{self.path}: gzip-compressed; --follow reads a growing plain file (check it without)")
        stream.seek(0)
        status = os.fstat(stream.fileno())
        self.stream, self.inode, self.position, self.pending, self.line = (
            stream,
            (status.st_dev, status.st_ino),
            0,
            b"",
            1,
        )
        return True

    def lines(self) -> tuple[bytes, int]:
        """(complete lines appended since the last call, the number of the first of them)."""
        if self.stream is None and not self._open():
            return b"", self.line
        assert self.stream is not None
        collected = self._read()
        first = self.line
        try:
            status = os.stat(self.path)
        except FileNotFoundError:
            return self._complete(collected, first)  # moved away: keep reading the old until a new one appears
        if (status.st_dev, status.st_ino) != self.inode:
            # Rotated: the rest of the old file, then the new one from its start.
            collected += self._read()
            done = self._complete(collected, first)
            if self.pending:
                self.notice(f"{self.path}: rotated with an unfinished last line ({len(self.pending)} bytes dropped)")
            self.stream.close()
            self.stream = None
            self.notice(f"{self.path}: rotated; following the new file from its start")
            self._open()
            return done
        if status.st_size < self.position:
            self.notice(
                f"{self.path}: truncated from {self.position:,} to {status.st_size:,} bytes; "
                "reading it again from its start (lines counted so far stay counted)"
            )
            done = self._complete(collected, first)
            self.stream.seek(0)
            self.position, self.pending, self.line = 0, b"", 1
            return done
        return self._complete(collected, first)

    def _read(self) -> bytes:
        assert self.stream is not None
        parts = []
        while True:
            data = self.stream.read(READ_BYTES)
            if not data:
                break
            parts.append(data)
            self.position += len(data)
        return b"".join(parts)

    def _complete(self, data: bytes, first: int) -> tuple[bytes, int]:
        data = self.pending + data
        cut = data.rfind(b"\n") + 1
        self.pending = data[cut:]
        whole = data[:cut]
        self.line += whole.count(b"\n")
        return whole, first

    def close(self) -> None:
        if self.stream is not None:
            self.stream.close()


def follow(args: argparse.Namespace, budget: BudgetRun | None) -> int:
    from verify_contract.check._budget_report import event_line
    from verify_contract.check._sidecars import SIDECAR_SUFFIX, is_sidecar
    from verify_contract.cli._check_output import format_json, format_text, write_outputs

    if args.metrics_file:
        from verify_contract.check._budget_metrics import write_metrics

    if len(args.paths) != 1 or args.paths[0] == "-" or os.path.isdir(args.paths[0]):
        print("verify-contract check: --follow follows one file (not stdin, a directory or several)", file=sys.stderr)
        return EXIT_USAGE
    if args.jobs != 1:
        print("verify-contract check: --follow reads as the file grows: one process (drop --jobs)", file=sys.stderr)
        return EXIT_USAGE
    assert budget is not None  # --follow always has a budget (check_command.budget_wanted)
    path = args.paths[0]
    as_json = args.format == "json"

    def show(event: BudgetEvent) -> None:
        text = json.dumps({"budget_event": event.as_dict()}) if as_json else event_line(event)
        print(text, flush=True)

    def notice(text: str) -> None:
        print(f"verify-contract check: {text}", file=sys.stderr, flush=True)

    budget.on_event = show
    options = CheckOptions(
        args.contract_version, args.profile, args.max_findings, fast=not args.reference_only, facts=budget.spec
    )
    report = Report(options.version, options.profile, options.max_findings, files=1)
    report.budget = budget
    main = _Tail(path, notice)
    # The failures file may not exist yet: it is followed by name, as the main file is.
    sidecar_path = None
    if not args.no_sidecar and path.endswith(".jsonl") and not is_sidecar(path):
        sidecar_path = path[: -len(".jsonl")] + SIDECAR_SUFFIX
    side = _Tail(sidecar_path, notice) if sidecar_path is not None else None
    side_read = SidecarRead()
    refreshed = 0
    listed = 0
    code = None
    try:
        if not os.path.exists(path):
            notice(f"{path}: does not exist yet; waiting for it")
        while code is None:
            whole, first = main.lines()
            if whole:
                tally = check_chunk(whole, first, path, options, report.max_findings - len(report.findings))
                facts, tally.facts = tally.facts, []
                report.tally.merge(tally)
                for found in report.findings[listed:]:
                    f = found.finding
                    print(f"{found.path}:{found.line}: {f.severity.value} [{f.rule}] {f.message[:300]}", flush=True)
                listed = len(report.findings)
                for chunk_facts in facts:
                    budget.feed(chunk_facts)
                budget.flush()  # a breach is reported as soon as its line is read
            if side is not None:
                rows, first_row = side.lines()
                if rows:
                    read = _read_more(side_read, rows.splitlines(), first_row, side.path, budget)
                    for line, finding in read.findings:
                        print(f"{side.path}:{line}: {finding.severity.value} [{finding.rule}] {finding.message}")
                    add_sidecar_findings(report, side.path, read.findings)
                    budget.add_sidecar(side.path, read)
            if args.metrics_file and budget.budget.rollouts - refreshed >= budget.budget.window:
                refreshed = budget.budget.rollouts
                write_metrics(report, args.metrics_file)
            if args.fail_fast and budget.breached():
                code = EXIT_BUDGET
                break
            time.sleep(POLL_SECONDS)
    except FollowError as refused:
        print(f"verify-contract check: {refused}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        code = 130  # the summary still prints: that is what ^C asks of a follow
    finally:
        main.close()
        if side is not None:
            side.close()
    add_budget_findings(report)
    try:
        write_outputs(report, args)
    except (OSError, ImportError) as failed:
        report.input_errors.append(str(failed))
    # JSON: the report on one line, after the events' lines (a stream of JSON lines).
    text = json.dumps(json.loads(format_json(report, options))) if as_json else format_text(report, options, False)
    print(text, flush=True)
    for problem in report.input_errors:
        print(f"verify-contract check: {problem}", file=sys.stderr)
    return code


def _read_more(read: SidecarRead, lines: list[bytes], first: int, path: str, budget: BudgetRun) -> SidecarRead:
    read.facts = sidecar_lines(lines, first, path, budget.spec, read)
    return read
