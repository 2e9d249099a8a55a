"""``verify-contract check INPUT...``: files, directories, globs or ``-``; .json, .jsonl, gzip."""

from __future__ import annotations

import argparse
import os
import sys
import time

from verify_contract import fastpath
from verify_contract.check import DEFAULT_MAX_FINDINGS, CheckOptions, Report, check_paths
from verify_contract.check_report import dumps_report_data
from verify_contract.exit_codes import EXIT_INVALID, EXIT_OK, EXIT_USAGE
from verify_contract.versions import CONTRACT_VERSIONS, DEFAULT_PROFILE, LATEST_VERSION, PROFILES

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up); mypy knows the name
if TYPE_CHECKING:
    from typing import Any, TextIO

MESSAGE_LIMIT = 300
"""Characters of a finding's message shown: a message quotes the offending value, which may be megabytes."""

# (rule, text in the message) -> what to do about it; printed once per run under the findings.
HINTS: tuple[tuple[str, str, str], ...] = (
    (
        "json-syntax",
        "byte order mark",
        "{where} starts with a byte order mark; save it as UTF-8 without one "
        "(e.g. sed -i '{line}s/^\\xEF\\xBB\\xBF//' {path})",
    ),
    (
        "json-syntax",
        "invalid UTF-8",
        "a line is not UTF-8; if the file is in another encoding, convert it (iconv -f LATIN1 -t UTF-8 FILE)",
    ),
)


def cap(message: str, limit: int = MESSAGE_LIMIT) -> str:
    if len(message) <= limit:
        return message
    return f"{message[:limit]}... ({len(message):,} characters)"


def hints(report: Report) -> list[str]:
    """Each hint whose finding occurs, naming the first such finding's place ({where}, {path}, {line})."""
    found = []
    for rule, text, hint in HINTS:
        first = next((f for f in report.findings if f.finding.rule == rule and text in f.finding.message), None)
        if first is not None:
            line = first.line or 1
            where = first.path if first.line is None else f"{first.path}:{first.line}"
            found.append(hint.format(where=where, path=first.path, line=line))
    return found


def precheck(options: CheckOptions) -> str:
    """Whether the compiled pre-check ran: "compiled", "off" (--reference-only) or "not built"."""
    if not options.fast:
        return "off"
    return "compiled" if fastpath.available() else "not built"


PRECHECK_NOTES = {
    "compiled": "pre-check: compiled",
    "off": "pre-check: off (--reference-only): every line went through the reference validator",
    "not built": "pre-check: not built (no C compiler when installed; set CC and reinstall): every line went "
    "through the reference validator, same report, much slower",
}


def format_text(report: Report, options: CheckOptions) -> str:
    """Findings, then the summary. Input errors are not repeated here: they go to stderr, once."""
    lines = []
    for located in report.findings:
        where = located.path if located.line is None else f"{located.path}:{located.line}"
        f = located.finding
        lines.append(f"{where}: {f.severity.value} [{f.rule}] {cap(f.message)}")
    hidden = report.findings_total - len(report.findings)
    if hidden:
        lines.append(f"... {hidden} more findings not listed (--max-findings {len(report.findings)})")
    kinds = report.failure_kinds()
    legacy = report.legacy_mask()
    unread = f"; {len(report.input_errors)} input errors (on stderr)" if report.input_errors else ""
    lines.append(
        f"{report.lines} lines in {report.files} inputs "
        f"(contract {report.contract_version}, profile {report.profile}): "
        f"{report.valid} valid, {report.invalid} invalid, {report.blank} blank; {report.masked} masked; "
        f"{report.errors} errors, {report.warnings} warnings{unread}"
    )
    lines.append(
        f"failure kinds: {kinds['registered']} registered, {kinds['namespaced']} namespaced, "
        f"{kinds['unregistered']} unregistered; legacy mask: {legacy['used']} use it, {legacy['only']} only there, "
        f"{legacy['divergent']} divergent"
    )
    if report.tally.rules:
        lines.append("by rule: " + ", ".join(f"{rule} {n}" for rule, n in sorted(report.tally.rules.items())))
    lines.append(PRECHECK_NOTES[precheck(options)])
    lines.extend(f"hint: {hint}" for hint in hints(report))
    return "\n".join(lines)


def format_json(report: Report, options: CheckOptions) -> str:
    data = report.as_dict()
    for item in data["findings"]:
        item["message"] = cap(item["message"])
    data["precheck"] = precheck(options)
    data["hints"] = hints(report)
    return dumps_report_data(data)


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


def run(args: argparse.Namespace) -> int:
    if args.max_findings < 0 or args.jobs < 1:
        print("verify-contract check: --max-findings must be >= 0 and --jobs >= 1", file=sys.stderr)
        return EXIT_USAGE
    options = CheckOptions(
        args.contract_version, args.profile, args.max_findings, fast=not args.reference_only, jobs=args.jobs
    )
    show_progress = args.progress if args.progress is not None else sys.stderr.isatty()
    progress = ProgressLine(sys.stderr, _total_size(args.paths)) if show_progress else None
    try:
        report = check_paths(args.paths, options=options, progress=progress)
    except RuntimeError as failure:
        from verify_contract.check_workers import WorkerDied  # only --jobs imports it

        if not isinstance(failure, WorkerDied):
            raise
        # A --jobs worker was killed (out of memory, ...): say so, rather than report part of the input.
        print(f"verify-contract check: {failure}; no report, since it would be incomplete", file=sys.stderr)
        return EXIT_USAGE
    finally:
        if progress is not None:
            progress.close()
    print(format_json(report, options) if args.format == "json" else format_text(report, options))
    for error in report.input_errors:
        print(f"verify-contract check: {error}", file=sys.stderr)
    if report.input_errors:
        return EXIT_USAGE
    if report.invalid or (args.warnings_as_errors and report.warnings):
        return EXIT_INVALID
    return EXIT_OK


def register(commands: Any) -> None:
    check = commands.add_parser(
        "check",
        help="validate verify responses in .json/.jsonl files, directories, globs or - (stdin); gzip too",
        description="Exit codes: 0 all valid, 1 a document breaks the contract (or warns, with "
        "--warnings-as-errors), 2 usage or input error.",
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
    check.add_argument("--jobs", "-j", type=int, default=1, metavar="N", help="worker processes (default: 1)")
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
    check.set_defaults(handler=run)
