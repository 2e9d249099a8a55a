"""``check --follow FILE``: prints what the library's ``check.Follow`` yields while a run writes the file.

Findings and budget events on stdout as they come (JSON lines with ``--format json``), notices on stderr.
^C, SIGTERM and SIGHUP end the follow at its next poll (``_stops.deferred``): the summary is printed, the
retry list and the final metrics written, and the exit code is the stop's (130, 143, 129), or 3 when the
budget was breached (a breach outranks a stop); ``--fail-fast`` stops at the first breach (exit 3).
"""

from __future__ import annotations

import json
import os
import sys

from verify_contract.budget import BudgetEvent
from verify_contract.check import CheckOptions, Follow, FollowNotice, TailError
from verify_contract.cli import _stops as stops
from verify_contract.cli._exit_codes import EXIT_BUDGET, EXIT_USAGE, exit_for_signal

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up); mypy knows the name
if TYPE_CHECKING:
    from verify_contract.budget import FailureBudget
    from verify_contract.cli._check_settings import CheckSettings


def _refusal(settings: CheckSettings) -> str | None:
    """Why these settings cannot be followed, in one line, or None."""
    paths = settings.paths
    if len(paths) != 1 or paths[0] == "-" or os.path.isdir(paths[0]):
        return "--follow follows one file (not stdin, a directory or several)"
    if settings.jobs != 1:
        return "--follow reads as the file grows: one process (drop --jobs)"
    return None


def follow(settings: CheckSettings, budget: FailureBudget) -> int:
    from verify_contract.check import event_line
    from verify_contract.cli._check_output import finding_line, format_json, format_text, output_error, write_outputs

    refused = _refusal(settings)
    if refused is not None:
        print(f"verify-contract check: {refused}", file=sys.stderr)
        return EXIT_USAGE
    as_json = settings.format == "json"
    options = CheckOptions(settings.contract_version, settings.profile, settings.max_findings, fast=settings.fast)
    try:
        with stops.deferred() as stop:
            followed = Follow(
                settings.paths[0],
                budget,
                options,
                failures_file=settings.failures_files,
                metrics_file=settings.outputs.metrics_file,
                stop_at_breach=settings.fail_fast,
                stop_requested=lambda: stop.signum,
            )
            for event in followed:
                if isinstance(event, FollowNotice):
                    print(f"verify-contract check: {event}", file=sys.stderr, flush=True)
                elif isinstance(event, BudgetEvent):
                    print(json.dumps({"budget_event": event.as_dict()}) if as_json else event_line(event), flush=True)
                else:
                    print(finding_line(event.path, event.line, event.finding, settings.docs_url), flush=True)
    except TailError as failed:
        print(f"verify-contract check: {failed}", file=sys.stderr)
        return EXIT_USAGE
    report = followed.report
    try:
        write_outputs(report, settings.outputs)
    except (OSError, ImportError) as failed:
        report.input_errors.append(str(failed) if isinstance(failed, ImportError) else output_error(failed))
    # JSON: the report on one line, after the events' lines (a stream of JSON lines).
    if as_json:
        text = json.dumps(json.loads(format_json(report, followed.options, settings.docs_url)))
    else:
        text = format_text(report, followed.options, False, settings.docs_url)
    print(text, flush=True)
    for problem in report.input_errors:
        print(f"verify-contract check: {problem}", file=sys.stderr)
    if report.budget is not None and report.budget.breached():
        return EXIT_BUDGET  # a breach outranks a stop: the run is to be looked at, however it ended
    assert stop.signum  # the follow ends at a breach with --fail-fast, or at a stop
    return exit_for_signal(stop.signum)
