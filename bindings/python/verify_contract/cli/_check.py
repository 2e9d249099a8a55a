"""``verify-contract check INPUT...``: files, directories, globs or ``-``; .json, .jsonl, gzip."""

from __future__ import annotations

import argparse
import gc
import os
import sys
import time

from verify_contract._budget_caps import COUNT_LIMIT, DEFAULT_WINDOW, EVENTS_KEPT, MAX_DISTINCT
from verify_contract.check import DEFAULT_MAX_FINDINGS, CheckOptions, check_paths
from verify_contract.cli import _extras as extras
from verify_contract.cli import _remote as remote_check
from verify_contract.cli._check_output import exit_code, format_json, format_text, output_error, write_outputs
from verify_contract.cli._check_settings import CheckSettings
from verify_contract.cli._exit_codes import EXIT_BUDGET, EXIT_USAGE
from verify_contract.contract import CONTRACT_VERSIONS, DEFAULT_PROFILE, LATEST_VERSION, PROFILES

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up); mypy knows the name
if TYPE_CHECKING:
    from typing import Any, TextIO

    from verify_contract.budget import FailureBudget
    from verify_contract.cli._check_settings import OutputFiles


class ProgressLine:
    """A one-line progress display on a terminal; silent until the run has lasted a second."""

    def __init__(self, stream: TextIO, total_bytes: int | None) -> None:
        self.stream = stream
        self.total = total_bytes
        self.start = time.monotonic()
        self.last = 0.0
        self.shown = False

    def __call__(self, done_bytes: int, lines: int) -> None:
        now = time.monotonic()
        if now - self.start < 1.0 or now - self.last < 0.2:
            return
        self.last = now
        rate = lines / (now - self.start)
        text = f"{lines:,} lines, {done_bytes / 1e6:,.0f} MB, {rate:,.0f} lines/s"
        if self.total:
            share = min(done_bytes / self.total, 1.0)
            bar = "#" * int(share * 30)
            text = f"[{bar:<30}] {share:4.0%} " + text
        self.stream.write("\r" + text[:120] + "\x1b[K")
        self.stream.flush()
        self.shown = True

    def close(self) -> None:
        if self.shown:
            self.stream.write("\r\x1b[K")
            self.stream.flush()


def _total_size(paths: list[str]) -> int | None:
    total = 0
    for path in paths:
        if not os.path.isfile(path) or path.endswith(".gz"):
            return None  # stdin, directories, globs and compressed files: no meaningful total
        total += os.path.getsize(path)
    return total


class UsageError(ValueError):
    """A flag's value is out of range: one line on stderr, exit 2."""


def _rate(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a rate (a number between 0 and 1)") from None
    if not 0.0 <= value <= 1.0:  # NaN fails too
        raise argparse.ArgumentTypeError(f"{text} is outside [0, 1]: a rate, e.g. 0.2 for 20%")
    return value


def _count(minimum: int) -> Any:
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"{value} is below {minimum}")
        if value > COUNT_LIMIT:
            raise argparse.ArgumentTypeError(f"{value} is above {COUNT_LIMIT:,}, the largest count accepted")
        return value

    return parse


def _expected(text: str) -> int | tuple[int, int]:
    """``1280`` rollouts, or ``20x64`` (tasks x rollouts per task: each missing identity is listed)."""
    tasks, times, repeats = text.lower().partition("x")
    try:
        if times:
            grid = (int(tasks), int(repeats))
            if min(grid) < 1:
                raise ValueError
            total = grid[0] * grid[1]
        else:
            total = count = int(text)
            if count < 0:
                raise ValueError
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: give a count (1280) or TASKSxREPEATS (20x64)") from None
    if total > COUNT_LIMIT:
        raise argparse.ArgumentTypeError(f"{text}: more than {COUNT_LIMIT:,} rollouts, the largest count accepted")
    return grid if times else count


def make_budget(settings: CheckSettings) -> FailureBudget | None:
    """The run's budget from its settings (None: no budget flag; ``UsageError`` for bounds the budget refuses)."""
    if settings.budget is None:
        return None
    from verify_contract.budget import BudgetError

    try:
        return settings.failure_budget()
    except BudgetError as error:
        raise UsageError(str(error)) from None


def _check_outputs(outputs: OutputFiles) -> None:
    """Every file the run will write, tried before it starts (``--follow`` too): ``UsageError`` for the first
    that cannot be written."""
    for option, path in outputs.named():
        from verify_contract.check import output_problem

        problem = output_problem(path)
        if problem is not None:
            raise UsageError(f"{option} {problem}" if problem.startswith("needs") else f"{option}: {problem}")


def run(args: argparse.Namespace) -> int:
    settings = CheckSettings.from_arguments(args)
    if settings.max_findings < 0 or settings.jobs < 1:
        print("verify-contract check: --max-findings must be >= 0 and --jobs >= 1", file=sys.stderr)
        return EXIT_USAGE
    absent = extras.missing(extras.check_extras(settings))  # before any input is read: no report, then the refusal
    if absent is not None:
        print(f"verify-contract check: {absent}", file=sys.stderr)
        return EXIT_USAGE
    try:
        failure_budget = make_budget(settings)
        _check_outputs(settings.outputs)
        if settings.follow and settings.remote.selected():
            raise UsageError("--follow reads a local file as it grows: not with --engine ray or --storage-options")
        if settings.follow:
            from verify_contract.cli._follow import follow

            assert failure_budget is not None  # --follow always has a budget (CheckSettings.from_arguments)
            return follow(settings, failure_budget)
        if settings.fail_fast:
            raise UsageError("--fail-fast stops a --follow run at its first breach; add --follow")
        if settings.docs_url is not None and not settings.docs_url.strip():
            raise UsageError("--docs-url needs the site's address (e.g. https://example.org/verify-contract)")
    except (UsageError, ImportError) as refused:
        print(f"verify-contract check: {refused}", file=sys.stderr)
        return EXIT_USAGE
    budget = None
    if failure_budget is not None:
        from verify_contract.check import budget_run

        budget = budget_run(failure_budget)
    options = CheckOptions(
        settings.contract_version,
        settings.profile,
        settings.max_findings,
        fast=settings.fast,
        jobs=settings.jobs,
        facts=None if budget is None else budget.spec,
    )
    # What this process holds so far (the interpreter's objects, the resolved contract) lives for the whole
    # run: frozen, the collector stops walking it at each older-generation pass (about 5% of a run on the
    # benchmark corpora, more with a failure budget; benchmarks/README.md). A --jobs child inherits it frozen.
    gc.freeze()
    show_progress = settings.progress if settings.progress is not None else sys.stderr.isatty()
    progress = ProgressLine(sys.stderr, _total_size(settings.paths)) if show_progress else None
    try:
        if settings.remote.selected():  # storage options or Ray
            outcome = remote_check.run_elsewhere(settings, options, progress, budget)
            if isinstance(outcome, str):  # a usage error: bad --storage-options, or Ray cannot run
                print(f"verify-contract check: {outcome}", file=sys.stderr)
                return EXIT_USAGE
            report = outcome
        else:
            report = check_paths(
                settings.paths,
                options=options,
                progress=progress,
                budget=budget,
                failures_files=settings.failures_files,
                glob=settings.glob,
            )
    except KeyboardInterrupt as stop:  # ^C, SIGTERM, SIGHUP: no report, since it would be incomplete
        if budget is None or not budget.breached():
            raise
        from verify_contract.cli._stops import message

        print(f"verify-contract check: {message(stop)} after the failure budget was breached", file=sys.stderr)
        return EXIT_BUDGET  # a breach outranks a stop
    except RuntimeError as failure:
        from verify_contract.check import WorkerDied  # only --jobs imports it

        if not isinstance(failure, WorkerDied):
            raise
        # A --jobs worker was killed (out of memory, ...): say so, rather than report part of the input.
        print(f"verify-contract check: {failure}; no report, since it would be incomplete", file=sys.stderr)
        return EXIT_USAGE
    finally:
        if progress is not None:
            progress.close()
    # No input could be opened (a mistyped name): the errors alone, not a summary of zeros above them.
    if not (report.input_errors and not report.files and settings.format == "text"):
        try:
            write_outputs(report, settings.outputs)
        except (OSError, ImportError) as failed:
            report.input_errors.append(str(failed) if isinstance(failed, ImportError) else output_error(failed))
        text = format_json(report, options, settings.docs_url) if settings.format == "json" else None
        print(text if text is not None else format_text(report, options, docs_url=settings.docs_url))
    for error in report.input_errors:
        print(f"verify-contract check: {error}", file=sys.stderr)
    return exit_code(report, settings.warnings_as_errors)


def register(commands: Any) -> None:
    check = commands.add_parser(
        "check",
        help="validate verify responses in .json/.jsonl files, directories, globs or - (stdin); gzip too",
        description="Exit codes: 0 all valid, 1 a document breaks the contract (or warns, with "
        "--warnings-as-errors), 2 usage or input error, 3 a failure budget (--max-masked, "
        "--max-consecutive-masked) was breached (it outranks 1; the report lists both), 130, 143 or 129 "
        "stopped by ^C, SIGTERM or SIGHUP (--follow prints its summary and writes its files first). "
        "A breach outranks a stop: stopped after a breach, the exit code is 3.",
    )
    check.add_argument("paths", nargs="+", metavar="INPUT", help="file, directory, glob, or - for stdin")
    check.add_argument(
        "--profile",
        choices=PROFILES,
        default=DEFAULT_PROFILE,
        help="core (what a trainer needs) or gym (NeMo Gym's wire format, with the request echo); default: %(default)s",
    )
    check.add_argument(
        "--contract-version", choices=CONTRACT_VERSIONS, default=LATEST_VERSION, help="default: %(default)s"
    )
    check.add_argument("--format", choices=("text", "json"), default="text")
    check.add_argument(
        "--max-findings",
        type=int,
        default=DEFAULT_MAX_FINDINGS,
        metavar="N",
        help="list at most N findings; the counts stay exact (default: %(default)s)",
    )
    check.add_argument("--warnings-as-errors", action="store_true", help="exit 1 on warnings too (strict CI)")
    check.add_argument(
        "--docs-url",
        metavar="BASE",
        help="link each finding to its rule on the documentation site built by `verify-contract docs` "
        "(BASE/rules/#RULE, in text and JSON); off by default",
    )
    check.add_argument("--jobs", "-j", type=int, default=1, metavar="N", help="worker processes (default: %(default)s)")
    check.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="progress line on stderr (default: only when stderr is a terminal)",
    )
    check.add_argument(
        "--reference-only",
        action="store_true",
        help="skip the compiled pre-check and run every line through the reference validator (slow)",
    )
    remote_check.add_arguments(check)
    budget = check.add_argument_group(
        "failure budget (SPEC 11)",
        "Bound the share of masked or failed rollouts over a sliding window, overall and per group; "
        "a NeMo Gym failures file <stem>_failures.jsonl beside an input counts as failed rollouts, merged into "
        "its main file by rollout identity (SPEC 11.1). Any bound given is a budget, 0 included (the "
        f"strictest). Caps: {MAX_DISTINCT:,} distinct groups, failure kinds and failures-file classes (the rest "
        f"counted as (other)); the first {EVENTS_KEPT:,} budget events kept for --format json (the rest "
        f"counted); whole numbers up to {COUNT_LIMIT:.0e}.",
    )
    budget.add_argument("--max-masked", type=_rate, metavar="RATE", help="breach (exit 3) above this share")
    budget.add_argument("--warn-masked", type=_rate, metavar="RATE", help="warn above this share")
    budget.add_argument(
        "--window", type=_count(1), metavar="N", help=f"the last N rollouts (default: {DEFAULT_WINDOW})"
    )
    budget.add_argument(
        "--min-samples", type=_count(1), metavar="N", help="judge a window once it holds N (default: the window)"
    )
    budget.add_argument(
        "--max-consecutive-masked", type=_count(0), metavar="N", help="breach when more than N in a row are masked"
    )
    budget.add_argument(
        "--group-by",
        action="append",
        metavar="PATH[,PATH]",
        help="dotted member paths to count and bound per group (e.g. _ng_environment_server, agent_ref.name)",
    )
    budget.add_argument(
        "--expected",
        type=_expected,
        metavar="N|TASKSxREPEATS",
        help="rollouts the run should hold (missing counted; a grid is never listed in memory)",
    )
    budget.add_argument(
        "--no-failures-file",
        "--no-sidecar",  # its first name, kept for existing scripts
        action="store_true",
        help="do not read <stem>_failures.jsonl files",
    )
    budget.add_argument("--retry-list", metavar="PATH", help="write the rollouts to run again, one JSON line each")
    budget.add_argument("--metrics-file", metavar="PATH", help="write Prometheus text metrics (needs [metrics])")
    budget.add_argument(
        "--plot",
        metavar="PATH.png",
        help="plot the share masked or failed per window, a panel per group on one rollout axis (needs [plot])",
    )
    budget.add_argument(
        "--follow",
        action="store_true",
        help="follow a growing regular file as tail -F does; ^C, SIGTERM or SIGHUP print the summary",
    )
    budget.add_argument("--fail-fast", action="store_true", help="with --follow: stop at the first breach (exit 3)")
    check.set_defaults(handler=run)
