"""``verify-contract upgrade INPUT...``: rewrite JSON/JSONL verify responses to the latest contract version.

Each document's text goes through the library's lossless rewrite (``verify_contract.upgrade.upgrade_text``:
every byte but the change kept); this module reads the inputs, writes the outputs and reports. Nothing is
refused silently: every refused document is reported with its reason and left as it was, and the exit code
is 1.
"""

from __future__ import annotations

import argparse
import gzip
import os
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from verify_contract._counted import counted
from verify_contract.check import InputError, Source, chunks, read_all
from verify_contract.check import resolve_inputs as resolve
from verify_contract.cli._exit_codes import EXIT_INVALID, EXIT_OK, EXIT_USAGE
from verify_contract.contract import DEFAULT_PROFILE, LATEST_VERSION, PROFILES, Profile
from verify_contract.upgrade import UpgradeError, upgrade_text


@dataclass
class UpgradeReport:
    documents: int = 0
    upgraded: int = 0
    refused: int = 0
    blank: int = 0
    messages: list[str] = field(default_factory=list)
    first: str | None = None
    """Where the first document to upgrade or refused is (``file:line``): named even with ``--quiet``."""


def _lines(source: Source) -> Iterator[bytes]:
    for chunk in chunks(source):
        yield from chunk.splitlines(keepends=True)


def _upgrade_one(raw: bytes, where: str, profile: Profile, report: UpgradeReport) -> bytes:
    body = raw.rstrip(b"\r\n")
    ending = raw[len(body) :]
    if not body.strip(b" \t\r\n"):  # JSON whitespace only (SPEC 2.1): \x0b and \x0c are not blank
        report.blank += 1
        return raw
    report.documents += 1
    try:
        upgraded, changes = upgrade_text(body, profile)
    except UpgradeError as error:
        report.refused += 1
        report.messages.append(f"{where}: refused, left unchanged: {error}")
        report.first = report.first or where
        return raw
    if changes:
        report.first = report.first or where
        report.upgraded += 1
        report.messages.extend(f"{where}: {change}" for change in changes)
    return upgraded + ending


def upgrade_source(source: Source, output: IO[bytes] | None, profile: Profile, report: UpgradeReport) -> bool:
    """Upgrade one input into ``output`` (None: only report). False if the output differs from the input."""
    same = True
    if source.is_document:
        raw = read_all(source)
        upgraded = _upgrade_one(raw, source.name, profile, report)
        same = upgraded == raw
        if output is not None:
            output.write(upgraded)
        return same
    for number, line in enumerate(_lines(source), start=1):
        upgraded = _upgrade_one(line, f"{source.name}:{number}", profile, report)
        same = same and upgraded == line
        if output is not None:
            output.write(upgraded)
    return same


def _open_output(path: Path) -> IO[bytes]:
    if path.name.endswith(".gz"):
        return gzip.open(path, "wb")  # type: ignore[return-value]  # GzipFile is a binary IO
    return open(path, "wb")


def _in_place(source: Source, profile: Profile, report: UpgradeReport) -> None:
    assert source.path is not None
    handle, temporary = tempfile.mkstemp(prefix=".upgrade-", dir=source.path.parent)
    os.close(handle)
    try:
        with _open_output(Path(temporary) if not source.path.name.endswith(".gz") else Path(temporary + ".gz")) as out:
            upgrade_source(source, out, profile, report)
        if source.path.name.endswith(".gz"):
            os.replace(temporary + ".gz", temporary)
        os.chmod(temporary, source.path.stat().st_mode & 0o7777)
        os.replace(temporary, source.path)
    finally:
        for leftover in (temporary, temporary + ".gz"):
            if os.path.exists(leftover):
                os.unlink(leftover)


def run(args: argparse.Namespace) -> int:
    sources, errors = resolve(args.paths)
    if (args.output or not (args.in_place or args.check)) and len(sources) > 1:
        errors.append("several inputs: use --in-place or --check (one output stream holds one input)")
        sources = []
    if args.in_place and any(s.path is None for s in sources):
        errors.append("--in-place cannot rewrite stdin")
        sources = []
    if args.output:  # tried before any input is read (check._outputs)
        from verify_contract.check import output_problem

        problem = output_problem(args.output)
        if problem is not None:
            errors.append(f"--output: {problem}")
            sources = []
    report = UpgradeReport()
    changed = False
    for source in sources:
        try:
            if args.check:
                changed = not upgrade_source(source, None, args.profile, report) or changed
            elif args.in_place:
                _in_place(source, args.profile, report)
            elif args.output:
                with _open_output(Path(args.output)) as out:
                    upgrade_source(source, out, args.profile, report)
            else:
                upgrade_source(source, sys.stdout.buffer, args.profile, report)
                sys.stdout.flush()
        except BrokenPipeError:
            raise  # stdout's reader went away (`| head`): the command line stops quietly
        except (InputError, OSError) as error:
            errors.append(str(error))
    if not args.quiet:
        for message in report.messages:
            print(message, file=sys.stderr)
    if sources or not errors:  # no input opened (a mistyped name): the errors alone, not a line of zeros
        print(
            f"upgrade to {LATEST_VERSION}: {counted(report.documents, 'document')}, {report.upgraded:,} upgraded, "
            f"{report.documents - report.upgraded - report.refused:,} already current, {report.refused:,} refused"
            + (", would change" if args.check and changed else "")
            + (f"; first: {report.first}" if args.quiet and report.first else ""),
            file=sys.stderr,
        )
    for problem in errors:
        print(f"verify-contract upgrade: {problem}", file=sys.stderr)
    if errors:
        return EXIT_USAGE
    return EXIT_INVALID if report.refused or (args.check and changed) else EXIT_OK


def register(commands: Any) -> None:
    parser = commands.add_parser(
        "upgrade",
        help=f"rewrite .json/.jsonl verify responses to contract {LATEST_VERSION}, losslessly",
        description="Writes to stdout unless --output, --in-place or --check. Exit codes: 0 done, 1 some "
        "document was refused (reported, left unchanged) or, with --check, would change; 2 usage or input error.",
    )
    parser.add_argument("paths", nargs="+", metavar="INPUT", help="file, directory, glob, or - for stdin")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--output", "-o", metavar="PATH", help="write here (.gz: compressed)")
    mode.add_argument("--in-place", action="store_true", help="rewrite the inputs")
    mode.add_argument("--check", action="store_true", help="write nothing; exit 1 if an upgrade is needed")
    parser.add_argument("--profile", choices=PROFILES, default=DEFAULT_PROFILE, help="default: %(default)s")
    parser.add_argument(
        "--quiet", "-q", action="store_true", help="only the summary line (it names the first place to upgrade)"
    )
    parser.set_defaults(handler=run)
