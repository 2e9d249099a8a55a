"""``check --follow FILE``: check a rollout file while a run writes it, as ``tail -F`` follows a log.

Whole lines are checked as they arrive (a partial last line waits for its newline); the file's failures
file (``<stem>_failures.jsonl``) is followed too. Rotation and truncation are ``check._tail``'s: a rotated
file is drained before the new one is read, a truncated one read again from its start, the backlog in bounded
chunks, and a line that could not be read is counted. Budget events are printed as they happen, within a poll
interval of the line that caused them; the metrics file is refreshed every window. ^C, SIGTERM and SIGHUP
print the summary, write the retry list and the final metrics, and exit 130, 143 and 129, or 3 when the
budget was breached (a breach outranks a stop); ``--fail-fast`` stops at the first breach (exit 3).
"""

from __future__ import annotations

import json
import os
import sys
import time

from verify_contract.check import (
    BudgetRun,
    CheckOptions,
    FailuresRows,
    Report,
    Tail,
    TailError,
    add_budget_findings,
    add_sidecar_findings,
    check_chunk,
    numbered_lines,
)
from verify_contract.cli import _stops as stops
from verify_contract.cli._exit_codes import EXIT_BUDGET, EXIT_USAGE

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up); mypy knows the name
if TYPE_CHECKING:
    import argparse

    from verify_contract.budget import BudgetEvent

POLL_SECONDS = 0.1
"""How often a followed file is looked at: a breach is reported within this (plus the check) of its line."""


def follow(args: argparse.Namespace, budget: BudgetRun | None) -> int:
    from verify_contract.check import SIDECAR_SUFFIX, event_line, is_sidecar
    from verify_contract.cli._check_output import finding_line, format_json, format_text, output_error, write_outputs

    if args.metrics_file:
        from verify_contract.check import write_metrics

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
    # A poll that read failures rows with identities merges them into its main lines (SPEC 11.1, by arrival
    # and then by identity): those lines are read with their identities.
    identified = CheckOptions(
        options.version,
        options.profile,
        options.max_findings,
        options.fast,
        facts=budget.spec.ordering(frozenset([path])),
    )
    report = Report(options.version, options.profile, options.max_findings, files=1)
    report.budget = budget
    main = Tail(path, notice)
    # The failures file may not exist yet: it is followed by name, as the main file is.
    sidecar_path = None
    if not args.no_sidecar and path.endswith(".jsonl") and not is_sidecar(path):
        sidecar_path = path[: -len(".jsonl")] + SIDECAR_SUFFIX
    side = Tail(sidecar_path, notice) if sidecar_path is not None else None
    side_read = None  # its counts, from its first row on
    refreshed = 0
    listed = 0
    code = None
    metrics_failed = False
    try:
        with stops.deferred() as stop:
            if not os.path.exists(path):
                notice(f"{path}: does not exist yet; waiting for it")
            while code is None and not stop.signum:
                merging = False
                pieces = side.read() if side is not None else []
                if side is not None and pieces:
                    side_read = budget.sidecar_read(side.path)
                    numbered = (row for rows, first in pieces for row in numbered_lines(rows.splitlines(), first))
                    merge = FailuresRows(side.path, numbered, budget.spec.group_paths, side_read)
                    head = merge.head()
                    merging = head is not None and head[3] is not None
                    budget.merge_failures([path], {path: merge}, [])
                for whole, first in main.read():
                    room = report.max_findings - len(report.findings)
                    tally = check_chunk(whole, first, path, identified if merging else options, room)
                    facts, tally.facts = tally.facts, []
                    report.tally.merge(tally)
                    for found in report.findings[listed:]:
                        print(finding_line(found.path, found.line, found.finding, args.docs_url), flush=True)
                    listed = len(report.findings)
                    for chunk_facts in facts:
                        budget.feed(chunk_facts)
                budget.finish_failures()  # the poll's failures rows left after its main lines; events reported now
                if side is not None and side_read is not None:
                    for line, finding in side_read.findings:
                        print(f"{side.path}:{line}: {finding.severity.value} [{finding.rule}] {finding.message}")
                    add_sidecar_findings(report, side.path, side_read)
                if args.metrics_file and budget.budget.rollouts - refreshed >= budget.budget.window:
                    refreshed = budget.budget.rollouts
                    try:
                        write_metrics(report, args.metrics_file)
                    except OSError as failed:  # told once; tried again each window, and at the end
                        if not metrics_failed:
                            notice(f"--metrics-file {failed.filename}: {failed.strerror}; still following")
                        metrics_failed = True
                if args.fail_fast and budget.breached():
                    code = EXIT_BUDGET
                    break
                if not main.more and (side is None or not side.more):  # a backlog is read on without a pause
                    time.sleep(POLL_SECONDS)
            if stop.signum:
                code = 128 + stop.signum  # the summary still prints: that is what a stop asks of a follow
    except TailError as refused:
        print(f"verify-contract check: {refused}", file=sys.stderr)
        return EXIT_USAGE
    finally:
        main.close()
        if side is not None:
            side.close()
    for tail in (main, side):
        if tail is not None:
            tail.finish()
            if tail.lost_lines:
                report.input_errors.append(
                    f"{tail.path}: {tail.lost_lines:,} lines could not be read (see the notices above)"
                )
    add_budget_findings(report)
    try:
        write_outputs(report, args)
    except (OSError, ImportError) as failed:
        report.input_errors.append(str(failed) if isinstance(failed, ImportError) else output_error(failed))
    # JSON: the report on one line, after the events' lines (a stream of JSON lines).
    if as_json:  # the report on one line
        text = json.dumps(json.loads(format_json(report, options, args.docs_url)))
    else:
        text = format_text(report, options, False, args.docs_url)
    print(text, flush=True)
    for problem in report.input_errors:
        print(f"verify-contract check: {problem}", file=sys.stderr)
    if code != EXIT_BUDGET and budget.breached():
        return EXIT_BUDGET  # a breach outranks a stop: the run is to be looked at, however it ended
    assert code is not None  # the loop ends at a breach with --fail-fast, or at a stop
    return code
